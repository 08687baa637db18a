// jemalloc's options, read by jemalloc when the process starts (meson.build's allocator_dep
// compiles this file into every executable that links jemalloc). rjsim's processes are short
// lived, so freed pages are kept for reuse instead of being handed back to the system as they age:
// the madvise calls that handing back costs fell in the middle of imports (about 10% of one).
// Memory comes in transparent huge pages where the system allows them (madvise mode, Debian's
// default): the exhaustive search's visited set grows to hundreds of MB that every state probes at
// random, and with 4 KiB pages nearly every probe also missed the TLB (a 60 s search of
// all-faults-1-0: 508,287 and 602,213 distinct states/s against 477,134 and 497,077; peak RSS
// +2%; random exploration unchanged; docs/performance.md, 2026-12-07 evening).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1,thp:always";
}
