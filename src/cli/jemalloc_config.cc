// jemalloc's options, read by jemalloc when the process starts (meson.build's allocator_dep
// compiles this file into every executable that links jemalloc). rjsim's processes are short
// lived, so freed pages are kept for reuse instead of being handed back to the system as they age:
// the madvise calls that handing back costs fell in the middle of imports (about 10% of one).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
