package sanctions

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

var bench struct {
	once  sync.Once
	list  []EvalCase
	ix    *Index
	build time.Duration
	heap  uint64
}

func benchIndex() {
	bench.once.Do(func() {
		list := GenerateList(50000, 42)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		bench.ix = Build(list, Options{})
		bench.build = time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		bench.heap = after.HeapAlloc - before.HeapAlloc
		bench.list = GenerateEval(list, 2000, 43)
	})
}

func BenchmarkBuild50k(b *testing.B) {
	list := GenerateList(50000, 42)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Build(list, Options{})
	}
}

func BenchmarkSearch50k(b *testing.B) {
	benchIndex()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		bench.ix.Search(bench.list[i%len(bench.list)].Query, 10)
		i++
	}
}

// BenchmarkLatency50k reports the p50/p99 latency of the 2 000 eval
// queries at 50 000 entities, the queries a second on one goroutine, the
// build time and the index's heap: the targets are judged on these numbers
// (docs/BENCHMARKS.md), not asserted in a test.
func BenchmarkLatency50k(b *testing.B) {
	benchIndex()
	var lat []time.Duration
	var total time.Duration
	for b.Loop() {
		for _, c := range bench.list {
			s := time.Now()
			bench.ix.Search(c.Query, 10)
			d := time.Since(s)
			lat = append(lat, d)
			total += d
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
	b.ReportMetric(float64(len(lat))/total.Seconds(), "queries/s")
	b.ReportMetric(bench.build.Seconds(), "build-s")
	b.ReportMetric(float64(bench.heap)/(1<<20), "heap-MB")
	b.ReportMetric(0, "ns/op")
}
