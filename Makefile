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
#   make check-includes    include edges and file map against
#                          Documentation/architecture.rst
#   make shellcheck        shellcheck -S warning over scripts/
#   make check             everything: build, KUnit, guest tests; summary
#   make check-quick       the edit loop's subset: 6.1 build, checkpatch,
#                          KUnit, one short guest batch (minutes)
#   make demo              a guest with the module on a link and traffic
#   make kunit             only the KUnit suites in the debug kernel
#   make check-long        the long runs (traffic, hostile peer, faults)
#   make check-kernels     the guest suites on Debian's 6.12 and the smoke
#                          set on Debian's newest 7.x kernel
#   make deb               out/deb/siw-dkms_<version>_all.deb (DKMS source)
#   make dkms-install      the source into /usr/src/siw-<version>, then
#                          dkms add, build and install for KVERS (default:
#                          every kernel with headers in /lib/modules)
#   make dkms-remove       dkms remove --all, and /usr/src/siw-<version>

KVER ?= $(shell uname -r)
ifneq ($(wildcard /lib/modules/$(KVER)/build),)
KDIR ?= /lib/modules/$(KVER)/build
else
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64)))
endif

PWD := $(shell pwd)
# The tree this Makefile belongs to (it may run with -f from elsewhere)
TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
# The one place the version is kept; dkms.conf and debian/ take it here
SIW_VERSION := $(shell cat $(TOP)/VERSION)
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

check-includes:
	scripts/check-includes

shellcheck:
	scripts/shellcheck

check:
	scripts/check

check-quick:
	scripts/check-quick

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

bench-profile:
	scripts/bench-profile

# What DKMS needs of the tree: the module's sources, none of its products
DKMS_FILES = Kbuild VERSION drivers
COPY = rsync -a --exclude '*.o' --exclude '*.ko' --exclude '.*.cmd' \
	--exclude '*.mod' --exclude '*.mod.c' --exclude '*.o.d' \
	--exclude modules.order --exclude Module.symvers
DKMS_SRC = /usr/src/siw-$(SIW_VERSION)
KVERS ?= $(patsubst /lib/modules/%/build/include,%, \
	$(wildcard /lib/modules/*/build/include))

dkms-install:
	@! dpkg -S $(DKMS_SRC) > /dev/null 2>&1 || \
		{ echo "$(DKMS_SRC) belongs to a package; apt remove siw-dkms first" >&2; exit 1; }
	@test -n "$(KVERS)" || { echo "no kernel headers in /lib/modules/*/build" >&2; exit 1; }
	if [ -n "$$(dkms status siw/$(SIW_VERSION))" ]; then dkms remove siw/$(SIW_VERSION) --all; fi
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cd $(TOP) && $(COPY) $(DKMS_FILES) $(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(SIW_VERSION)/' $(TOP)/dkms.conf > $(DKMS_SRC)/dkms.conf
	dkms add siw/$(SIW_VERSION)
	@for k in $(KVERS); do \
		echo "dkms install siw/$(SIW_VERSION) -k $$k"; \
		dkms install siw/$(SIW_VERSION) -k $$k; rc=$$?; \
		if [ $$rc = 77 ]; then echo "siw: not for $$k (BUILD_EXCLUSIVE), skipped"; \
		elif [ $$rc != 0 ]; then exit $$rc; fi; \
	done
	dkms status siw/$(SIW_VERSION)

dkms-remove:
	@! dpkg -S $(DKMS_SRC) > /dev/null 2>&1 || \
		{ echo "$(DKMS_SRC) belongs to a package; apt remove siw-dkms instead" >&2; exit 1; }
	if [ -n "$$(dkms status siw/$(SIW_VERSION))" ]; then dkms remove siw/$(SIW_VERSION) --all; fi
	rm -rf $(DKMS_SRC)

# dpkg-buildpackage writes next to the source directory: the staging copy
# lives in out/deb/, so the .deb, .buildinfo and .changes land there.
DEB_DIR = $(TOP)/out/deb
DEB_STAGE = $(DEB_DIR)/siw-$(SIW_VERSION)

deb:
	rm -rf $(DEB_STAGE) $(DEB_DIR)/siw-dkms_$(SIW_VERSION)_* $(DEB_DIR)/siw_$(SIW_VERSION)_*
	mkdir -p $(DEB_STAGE)
	cd $(TOP) && $(COPY) $(DKMS_FILES) dkms.conf debian $(DEB_STAGE)/
	printf 'siw (%s) unstable; urgency=medium\n\n  * Built by make deb from VERSION %s.\n\n -- %s  %s\n' \
		'$(SIW_VERSION)' '$(SIW_VERSION)' \
		"$$(sed -n 's/^Maintainer: //p' $(TOP)/debian/control)" \
		"$$(date -R)" > $(DEB_STAGE)/debian/changelog
	cd $(DEB_STAGE) && dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_STAGE)
	@ls $(DEB_DIR)/siw-dkms_$(SIW_VERSION)_all.deb

.PHONY: all modules clean install uninstall sparse checkpatch check-includes \
	shellcheck \
	check check-quick check-long \
	check-kernels kunit demo bench bench-profile
.PHONY: dkms-install dkms-remove deb
