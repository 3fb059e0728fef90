// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin (host side) that counts the guest instructions the
 * guest kernel executes, by the address each translated block starts
 * at, and the guest's user-space instructions as one sum. Under TCG a
 * guest's timing drifts by two to three times over minutes; what the
 * guest executes does not, so two builds, or ours and upstream siw,
 * can be compared by the instructions a message costs.
 *
 * Loaded by scripts/guest (SIW_GUEST_INSNS=PATH-TO-SO) as
 *   -plugin file=insns.so,dir=DIR
 * where DIR is the host side of the guest's /siw-out. The guest asks
 * for a snapshot by renaming a file holding one word, LABEL, to
 * /siw-out/insns.req; a thread of this plugin writes DIR/insns-LABEL.txt
 * ("user N", then "ADDR N R" for every kernel block that ran: the
 * instructions executed in blocks starting at ADDR since boot, and how
 * many times such a block ran), removes
 * insns.req and writes LABEL to DIR/insns.ack. The guest waits for that
 * (insns_mark in scripts/tests/bench-profile.sh).
 *
 * The counters are added to by the vCPU threads without atomics, as
 * QEMU's inline operations do: two vCPUs in the same block at once can
 * lose a count. Snapshots read them while the guest runs.
 *
 * Built by scripts/bench-profile with the host's compiler; it declares
 * the few functions of QEMU's plugin interface it uses (version 1, that
 * of Debian 12's QEMU 7.2), so that no QEMU source is needed.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The plugin interface, version 1 */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
} plugin_info;
enum { PLUGIN_INLINE_ADD_U64 = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
		int op, void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* x86-64: the kernel's half of the address space */
#define KERNEL_START 0xffff800000000000ULL

struct block {
	uint64_t addr;
	uint64_t insns;
	uint64_t runs;
};

#define CHUNK 4096
#define NCHUNKS 4096

/*
 * Blocks live in chunks that never move: the inline ops point at them,
 * and the snapshot thread reads them without the lock. The array of
 * chunks is fixed too (16M blocks; a guest kernel uses some 100k).
 */
static struct block *chunks[NCHUNKS];
static size_t nchunks, nblocks;
/* Open addressing over the blocks, by address */
static struct block **table;
static size_t table_size;
static uint64_t user_insns;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *dir;

static size_t slot_of(uint64_t addr, size_t size)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 20) & (size - 1);
}

static int table_grow(void)
{
	size_t size = table_size ? table_size * 2 : 1 << 16, i;
	struct block **t = calloc(size, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < table_size; i++) {
		struct block *b = table[i];
		size_t s;

		if (!b)
			continue;
		for (s = slot_of(b->addr, size); t[s]; s = (s + 1) & (size - 1))
			;
		t[s] = b;
	}
	free(table);
	table = t;
	table_size = size;
	return 0;
}

/* The block starting at ADDR, made on first sight; lock held */
static struct block *block_get(uint64_t addr)
{
	struct block *b;
	size_t s;

	if (2 * (nblocks + 1) > table_size && table_grow())
		return NULL;
	for (s = slot_of(addr, table_size); table[s]; s = (s + 1) & (table_size - 1))
		if (table[s]->addr == addr)
			return table[s];
	if (nblocks == nchunks * CHUNK) {
		if (nchunks == NCHUNKS)
			return NULL;
		chunks[nchunks] = calloc(CHUNK, sizeof(struct block));
		if (!chunks[nchunks])
			return NULL;
		nchunks++;
	}
	b = &chunks[nblocks / CHUNK][nblocks % CHUNK];
	b->addr = addr;
	nblocks++;
	table[s] = b;
	return b;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b;

	(void)id;
	if (addr < KERNEL_START) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb, PLUGIN_INLINE_ADD_U64,
							 &user_insns, n);
		return;
	}
	pthread_mutex_lock(&lock);
	b = block_get(addr);
	pthread_mutex_unlock(&lock);
	if (!b)
		return;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, PLUGIN_INLINE_ADD_U64,
						 &b->insns, n);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, PLUGIN_INLINE_ADD_U64,
						 &b->runs, 1);
}

static int path(char *buf, size_t len, const char *name)
{
	return snprintf(buf, len, "%s/%s", dir, name) < (int)len ? 0 : -1;
}

/* Write the snapshot LABEL asked for, then the acknowledgement */
static void snapshot(const char *label)
{
	char file[4096], tmp[4096];
	size_t i, n;
	FILE *f;

	if (snprintf(file, sizeof(file), "%s/insns-%s.txt", dir, label) >=
	    (int)sizeof(file))
		return;
	f = fopen(file, "w");
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	n = nblocks;
	pthread_mutex_unlock(&lock);
	fprintf(f, "user %" PRIu64 "\n", user_insns);
	for (i = 0; i < n; i++) {
		struct block *b = &chunks[i / CHUNK][i % CHUNK];

		if (b->insns)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->addr, b->insns, b->runs);
	}
	fclose(f);
	if (path(tmp, sizeof(tmp), "insns.ack.tmp") ||
	    path(file, sizeof(file), "insns.ack"))
		return;
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", label);
	fclose(f);
	rename(tmp, file);
}

static void *watch(void *arg)
{
	char req[4096], label[256];

	(void)arg;
	if (path(req, sizeof(req), "insns.req"))
		return NULL;
	for (;;) {
		FILE *f = fopen(req, "r");

		if (!f) {
			usleep(20000);
			continue;
		}
		label[0] = 0;
		if (fscanf(f, "%255[A-Za-z0-9._-]", label) != 1)
			label[0] = 0;
		fclose(f);
		unlink(req);
		if (label[0])
			snapshot(label);
	}
	return NULL;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const plugin_info *info,
			       int argc, char **argv)
{
	pthread_t thread;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			dir = argv[i] + 4;
	if (!dir) {
		qemu_plugin_outs("insns: dir=DIR is required\n");
		return -1;
	}
	if (table_grow())
		return -1;
	if (pthread_create(&thread, NULL, watch, NULL)) {
		qemu_plugin_outs("insns: no thread\n");
		return -1;
	}
	pthread_detach(thread);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
