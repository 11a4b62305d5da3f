#include "dk_benchmark.h"
#include <benchmark/benchmark.h>
#include <malloc.h>

extern "C" {

void dk_benchmark_register(const char *name, dk_benchmark_body body, void *context) {
    // One iteration is one whole run of a scene; its manual time is the run's mean time per measured step, so the
    // standard time column (and compare.py, and --benchmark_repetitions' aggregates) read milliseconds per step.
    benchmark::RegisterBenchmark(name, [body, context](benchmark::State &state) { body(&state, context); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
}

void dk_benchmark_set_iteration_time(void *state, double seconds) {
    static_cast<benchmark::State *>(state)->SetIterationTime(seconds);
}

void dk_benchmark_pause(void *state) { static_cast<benchmark::State *>(state)->PauseTiming(); }
void dk_benchmark_resume(void *state) { static_cast<benchmark::State *>(state)->ResumeTiming(); }

int dk_benchmark_keep_running(void *state) { return static_cast<benchmark::State *>(state)->KeepRunning() ? 1 : 0; }


void dk_benchmark_set_counter(void *state, const char *name, double value) {
    static_cast<benchmark::State *>(state)->counters[name] = benchmark::Counter(value);
}

void dk_benchmark_skip_with_error(void *state, const char *message) {
    static_cast<benchmark::State *>(state)->SkipWithError(message);
}

// In use: the allocator's arena chunks (uordblks) and the large blocks it maps on their own (hblkhd, every block of
// 128 KiB or more at first), which uordblks leaves out.
unsigned long long dk_heap_in_use(void) {
    const struct mallinfo2 info = mallinfo2();
    return static_cast<unsigned long long>(info.uordblks + info.hblkhd);
}

int dk_benchmark_main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
}
