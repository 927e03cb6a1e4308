package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// bridgeStatus is what the bridge's /metrics, /healthz and /readyz report:
// every poll's outcome, and whether the last one reached the RM.
type bridgeStatus struct {
	registry  *prometheus.Registry
	polls     *prometheus.CounterVec
	published prometheus.Counter
	calls     prometheus.Counter
	pollTime  prometheus.Histogram
	pending   prometheus.Gauge
	rmUp      prometheus.Gauge
	lastOK    prometheus.Gauge

	// splitStats reads the bridge's split lookups (nil: none yet).
	splitStats func() yarnclient.SplitStats

	mu      sync.Mutex
	polled  bool
	lastErr error
}

func newBridgeStatus() *bridgeStatus {
	r := prometheus.NewRegistry()
	s := &bridgeStatus{
		registry: r,
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_bridge_polls_total",
			Help: "Polls of the RM and MR AM REST APIs, by result (ok, error)."}, []string{"result"}),
		published: prometheus.NewCounter(prometheus.CounterOpts{Name: "rmsidecar_bridge_events_published_total",
			Help: "Events v1 published."}),
		calls: prometheus.NewCounter(prometheus.CounterOpts{Name: "rmsidecar_bridge_rest_calls_total",
			Help: "REST calls to the RM and the MR AMs."}),
		pollTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rmsidecar_bridge_poll_seconds",
			Help: "Wall time of one poll.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rmsidecar_bridge_pending_events",
			Help: "Events waiting for the publisher (Kafka unreachable)."}),
		rmUp: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rmsidecar_bridge_rm_up",
			Help: "1 if the last poll reached the ResourceManager, else 0."}),
		lastOK: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rmsidecar_bridge_last_success_timestamp_seconds",
			Help: "Unix time of the last successful poll."}),
	}
	r.MustRegister(s.polls, s.published, s.calls, s.pollTime, s.pending, s.rmUp, s.lastOK,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.polls.WithLabelValues("ok")
	s.polls.WithLabelValues("error")
	for _, result := range []string{"ok", "stale", "failed"} {
		r.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "rmsidecar_bridge_splits_total",
			Help:        "MapReduce jobs whose input splits were looked up, by result (ok, stale, failed).",
			ConstLabels: prometheus.Labels{"result": result}}, func() float64 {
			if s.splitStats == nil {
				return 0
			}
			st := s.splitStats()
			return float64(map[string]int{"ok": st.OK, "stale": st.Stale, "failed": st.Failed}[result])
		}))
	}
	return s
}

// observe records one poll.
func (s *bridgeStatus) observe(events int, calls int64, took time.Duration, pending int, err error) {
	s.published.Add(float64(events))
	s.calls.Add(float64(calls))
	s.pollTime.Observe(took.Seconds())
	s.pending.Set(float64(pending))
	if err != nil {
		s.polls.WithLabelValues("error").Inc()
		s.rmUp.Set(0)
	} else {
		s.polls.WithLabelValues("ok").Inc()
		s.rmUp.Set(1)
		s.lastOK.Set(float64(time.Now().Unix()))
	}
	s.mu.Lock()
	s.polled, s.lastErr = true, err
	s.mu.Unlock()
}

func (s *bridgeStatus) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprintln(w, "ok")
	})
	// Ready once a poll has reached the RM, and as long as the last one did.
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		polled, err := s.polled, s.lastErr
		s.mu.Unlock()
		switch {
		case !polled:
			http.Error(w, "not ready: no poll yet", http.StatusServiceUnavailable)
		case err != nil:
			http.Error(w, "not ready: last poll failed: "+err.Error(), http.StatusServiceUnavailable)
		default:
			_, _ = fmt.Fprintln(w, "ready")
		}
	})
	return mux
}

// serve listens on addr until ctx ends.
func (s *bridgeStatus) serve(ctx context.Context, addr string) (stop func(), err error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l) // ErrServerClosed after stop; nothing else ends it
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}, nil
}
