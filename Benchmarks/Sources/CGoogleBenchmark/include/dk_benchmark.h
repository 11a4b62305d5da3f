// A C view of Google Benchmark (libbenchmark-dev) for Swift: registration by name, the iteration loop,
// manual timing and counters.
#ifndef DK_BENCHMARK_H
#define DK_BENCHMARK_H

#ifdef __cplusplus
extern "C" {
#endif

/// The body of a benchmark: `state` is the benchmark's state, `context` what was registered with it.
typedef void (*dk_benchmark_body)(void *state, void *context);

/// Registers a benchmark named exactly `name`: one iteration per run, timed manually (see
/// `dk_benchmark_set_iteration_time`), reported in milliseconds.
void dk_benchmark_register(const char *name, dk_benchmark_body body, void *context);
/// The iteration's time, in seconds: the run's mean time per measured step.
void dk_benchmark_set_iteration_time(void *state, double seconds);
/// Stops and restarts the clock inside an iteration (set-up and checks are not timed).
void dk_benchmark_pause(void *state);
void dk_benchmark_resume(void *state);
/// The iteration loop: true while another iteration should run.
int dk_benchmark_keep_running(void *state);
/// Sets a counter (reported as is, not as a rate).
void dk_benchmark_set_counter(void *state, const char *name, double value);
/// Marks the benchmark as failed with a message.
void dk_benchmark_skip_with_error(void *state, const char *message);
/// Bytes of heap in use (glibc's allocator statistics: arena chunks and separately mapped blocks), for
/// memory-per-item figures.
unsigned long long dk_heap_in_use(void);
/// Parses the command line (--benchmark_filter, --benchmark_format=json, ...), runs the selected benchmarks.
/// Returns 0, or 1 for an unrecognized argument.
int dk_benchmark_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
