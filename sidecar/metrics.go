package sidecar

import (
	"fmt"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the sidecar's Prometheus metrics (names from the public
// contract), registered on a registry of their own: no global state.
type Metrics struct {
	Registry *prometheus.Registry

	consumed    *prometheus.CounterVec
	rejected    *prometheus.CounterVec
	hints       *prometheus.CounterVec
	latency     prometheus.Histogram
	actErrors   *prometheus.CounterVec
	actuated    *prometheus.CounterVec
	gaveUp      *prometheus.CounterVec
	dropped     *prometheus.CounterVec
	coalesced   *prometheus.CounterVec
	degraded    *prometheus.GaugeVec
	brokerUp    prometheus.Gauge
	lag         *prometheus.GaugeVec
	queueDepth  prometheus.Gauge
	checkpoints prometheus.Counter
	// PostedEvents and PostedRejected count POST /v1/events lines (the
	// Hadoop plug-ins' reports) produced to the events topic, and those
	// that were not valid events (dead-lettered by the consumer).
	PostedEvents   prometheus.Counter
	PostedRejected prometheus.Counter
}

// NewMetrics creates and registers the metrics, with the Go and process
// collectors.
func NewMetrics() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		consumed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_events_consumed_total",
			Help: "Events applied to the engine, by event type."}, []string{"type"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_events_rejected_total",
			Help: "Messages not applied (sent to the dead-letter topic), by reason."}, []string{"reason"}),
		hints: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_hints_emitted_total",
			Help: "Hints emitted by the engine, by policy and kind."}, []string{"policy", "kind"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rmsidecar_hint_latency_seconds",
			Help:    "Time from receiving an event to emitting the hints it caused.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 18)}),
		actErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_actuation_errors_total",
			Help: "Failed hint delivery attempts, by actuator."}, []string{"actuator"}),
		actuated: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_hints_actuated_total",
			Help: "Hints delivered, by actuator."}, []string{"actuator"}),
		gaveUp: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_actuation_gave_up_total",
			Help: "Hints an actuator could not deliver after every retry (each is also logged)."}, []string{"actuator"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_actuation_dropped_total",
			Help: "Hints dropped undelivered, by actuator and reason (full: the actuator's bounded queue was full and this was its oldest hint)."},
			[]string{"actuator", "reason"}),
		coalesced: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rmsidecar_actuation_coalesced_total",
			Help: "Queued or retried hints replaced by a newer hint for the same target before delivery, by actuator."},
			[]string{"actuator"}),
		degraded: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rmsidecar_actuator_degraded",
			Help: "1 while an actuator's deliveries keep failing (consecutive failures), else 0."}, []string{"actuator"}),
		brokerUp: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rmsidecar_kafka_broker_up",
			Help: "1 while at least one configured Kafka broker accepts connections, else 0."}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rmsidecar_consumer_lag",
			Help: "Messages behind the partition's high-water mark, by topic/partition."}, []string{"partition"}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rmsidecar_engine_queue_depth",
			Help: "Messages waiting in the engine's bounded queue."}),
		checkpoints: prometheus.NewCounter(prometheus.CounterOpts{Name: "rmsidecar_checkpoints_total",
			Help: "Checkpoints of cluster state, engine and positions written."}),
		PostedEvents: prometheus.NewCounter(prometheus.CounterOpts{Name: "rmsidecar_posted_events_total",
			Help: "Valid events received on POST /v1/events (plug-in reports) and produced to the events topic."}),
		PostedRejected: prometheus.NewCounter(prometheus.CounterOpts{Name: "rmsidecar_posted_events_rejected_total",
			Help: "Lines of POST /v1/events bodies that are not valid events (dead-lettered by the consumer)."}),
	}
	r.MustRegister(m.consumed, m.rejected, m.hints, m.latency, m.actErrors, m.actuated, m.gaveUp, m.dropped, m.coalesced, m.degraded, m.brokerUp, m.lag,
		m.queueDepth, m.checkpoints, m.PostedEvents, m.PostedRejected,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ActuationError implements actuate.Metrics.
func (m *Metrics) ActuationError(a string) { m.actErrors.WithLabelValues(a).Inc() }

// Actuated implements actuate.Metrics.
func (m *Metrics) Actuated(a string) { m.actuated.WithLabelValues(a).Inc() }

// GaveUp implements actuate.Metrics.
func (m *Metrics) GaveUp(a string) { m.gaveUp.WithLabelValues(a).Inc() }

// Dropped implements actuate.QueueMetrics.
func (m *Metrics) Dropped(a, reason string) { m.dropped.WithLabelValues(a, reason).Inc() }

// Coalesced implements actuate.QueueMetrics.
func (m *Metrics) Coalesced(a string) { m.coalesced.WithLabelValues(a).Inc() }

// Degraded implements actuate.QueueMetrics.
func (m *Metrics) Degraded(a string, degraded bool) {
	v := 0.0
	if degraded {
		v = 1
	}
	m.degraded.WithLabelValues(a).Set(v)
}

func partitionLabel(topic string, p int32) string { return topic + "/" + strconv.Itoa(int(p)) }

// Totals are the running sums a status line reports.
type Totals struct {
	Events, Hints, DeadLetters float64
	Lag                        float64
}

// Totals reads the counters back from the registry: events consumed, hints
// emitted, events rejected (each went to the dead-letter topic) and the
// consumer lag summed over partitions.
func (m *Metrics) Totals() (Totals, error) {
	fams, err := m.Registry.Gather()
	if err != nil {
		return Totals{}, fmt.Errorf("gather metrics: %w", err)
	}
	var t Totals
	for _, f := range fams {
		var dst *float64
		switch f.GetName() {
		case "rmsidecar_events_consumed_total":
			dst = &t.Events
		case "rmsidecar_hints_emitted_total":
			dst = &t.Hints
		case "rmsidecar_events_rejected_total":
			dst = &t.DeadLetters
		case "rmsidecar_consumer_lag":
			dst = &t.Lag
		default:
			continue
		}
		for _, m := range f.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				*dst += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				*dst += m.GetGauge().GetValue()
			}
		}
	}
	return t, nil
}
