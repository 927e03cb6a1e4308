package hdfslocality

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics of one Resolver. Names are listed in docs/locality.md.
type metrics struct {
	hits       prometheus.Counter
	misses     prometheus.Counter
	stale      prometheus.Counter
	errors     *prometheus.CounterVec
	entries    prometheus.Gauge
	dropped    prometheus.Counter
	outages    prometheus.Counter
	failovers  prometheus.Counter
	fetchDur   prometheus.Histogram
	collectors []prometheus.Collector
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		hits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rmsidecar_locality_cache_hits_total",
			Help: "Locality lookups answered from a fresh cache entry.",
		}),
		misses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rmsidecar_locality_cache_misses_total",
			Help: "Locality lookups with no usable cache entry (a fetch was scheduled or run).",
		}),
		stale: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rmsidecar_locality_stale_serves_total",
			Help: "Locality lookups answered with an entry older than the TTL (refresh pending or NameNode unreachable).",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rmsidecar_locality_errors_total",
			Help: "Failed path resolutions by reason (unavailable, not_found, permission, remote).",
		}, []string{"reason"}),
		entries: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rmsidecar_locality_cache_entries",
			Help: "Entries in the locality cache.",
		}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rmsidecar_locality_refresh_dropped_total",
			Help: "Background refreshes not scheduled because too many were pending.",
		}),
		outages: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rmsidecar_locality_namenode_outages_total",
			Help: "Transitions from NameNode reachable to unreachable.",
		}),
		failovers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rmsidecar_locality_namenode_failovers_total",
			Help: "WebHDFS calls that moved on from a failed or standby NameNode to the next one.",
		}),
		fetchDur: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rmsidecar_locality_fetch_duration_seconds",
			Help:    "Time to resolve one input path from the NameNode (expand, block locations).",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 9),
		}),
	}
	for _, r := range []string{"unavailable", "not_found", "permission", "remote"} {
		m.errors.WithLabelValues(r) // export zeroes so rates work from the start
	}
	m.collectors = []prometheus.Collector{m.hits, m.misses, m.stale, m.errors, m.entries, m.dropped, m.outages, m.failovers, m.fetchDur}
	if reg != nil {
		for _, c := range m.collectors {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("hdfslocality: register metrics: %w", err)
			}
		}
	}
	return m, nil
}
