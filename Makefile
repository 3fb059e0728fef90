# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of siw.ko and the project's commands.
#
#   make [KDIR=...]        build siw.ko (and the KUnit modules when KDIR's
#                          kernel has KUnit)
#   make install|uninstall install into /lib/modules/<release>/extra, depmod
#                          (INSTALL_MOD_PATH=DIR installs under DIR instead)
#   make checkpatch        scripts/checkpatch.pl --strict over our sources
#   make sparse            the build under sparse (C=2)
#   make check             everything: build, KUnit, guest tests; summary
#   make demo              a guest with the module on a link and traffic
#   make kunit             only the KUnit suites in the debug kernel
#   make check-long        the long runs (traffic, hostile peer, faults)
#   make check-kernels     the guest suites on Debian's 6.12 and the smoke
#                          set on Debian's newest 7.x kernel

KVER ?= $(shell uname -r)
ifneq ($(wildcard /lib/modules/$(KVER)/build),)
KDIR ?= /lib/modules/$(KVER)/build
else
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))
endif

PWD := $(shell pwd)
SRCS = $(shell find drivers kunit -name '*.[ch]' | sort)

all: modules

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "no kernel headers; run scripts/setup or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean

# The release siw.ko was built for (KDIR's, not necessarily the running one)
KREL = $(shell modinfo -F vermagic $(PWD)/siw.ko 2>/dev/null | cut -d" " -f1)
MODDIR = $(INSTALL_MOD_PATH)/lib/modules/$(KREL)

# extra/ on every kernel (newer ones default to updates/); not signed,
# as no signing key comes with Debian's headers
install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=extra \
		CONFIG_MODULE_SIG_ALL= modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KREL)

uninstall:
	rm -f $(MODDIR)/extra/siw.ko $(MODDIR)/extra/siw.ko.xz \
		$(MODDIR)/extra/siw.ko.zst
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KREL)

sparse:
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 C=2 modules

checkpatch:
	scripts/checkpatch $(SRCS)

check:
	scripts/check

check-long:
	scripts/check-long

check-kernels:
	scripts/check-kernels

kunit:
	scripts/kunit

demo:
	scripts/demo

bench:
	scripts/bench

.PHONY: all modules clean install uninstall sparse checkpatch check check-long \
	check-kernels kunit demo bench
