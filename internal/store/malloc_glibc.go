//go:build linux && cgo

package store

/*
#include <malloc.h>

// vibe_keep_freed_memory stops glibc from handing freed memory back to the
// kernel after nearly every query. SQLite frees tens of kilobytes at the
// end of a sorting statement; on the per-thread arenas cgo calls land in,
// glibc's default trims the arena top each time (madvise MADV_DONTNEED),
// and the next statement faults the pages back in: measured 216 µs for an
// ORDER BY over an empty table, 20 µs with the memory kept. Keeping up to
// 16 MB per arena and serving blocks under 1 MB from the heap costs a
// resident worker a few megabytes at most.
static void vibe_keep_freed_memory(void) {
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
}
*/
import "C"

func keepFreedMemory() { C.vibe_keep_freed_memory() }
