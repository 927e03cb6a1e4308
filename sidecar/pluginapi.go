package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// The Hadoop plug-ins (yarn-plugin/) talk to the sidecar over three calls:
//
//	GET  /v1/hints/changes  hints after a cursor, filtered by app and kind, long-polled
//	POST /v1/events         events v1 as NDJSON, produced to the events topic
//	POST /v1/hints          operator hints (http.operator_hints), served like a policy's
//
// See docs/yarn-plugins.md for the contract.

// maxWait bounds a long poll, so a reader behind a proxy with a read
// timeout still gets an answer.
const maxWait = 30 * time.Second

// maxEventsBody bounds one POST /v1/events body.
const maxEventsBody = 16 << 20

// ChangesResponse is GET /v1/hints/changes.
type ChangesResponse struct {
	actuate.Changes
	// NowTS is the sidecar's event time: a hint is in force while its
	// expires_ts is 0 or after it.
	NowTS int64 `json:"now_ts"`
}

func serveChanges(l *Loop, pull *actuate.Pull) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if pull == nil {
			http.Error(w, "the http actuator is not enabled (actuators.enabled)", http.StatusNotFound)
			return
		}
		q := r.URL.Query()
		var after uint64
		if s := q.Get("after"); s != "" {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				http.Error(w, "after: not a non-negative integer: "+s, http.StatusBadRequest)
				return
			}
			after = v
		}
		var wait time.Duration
		if s := q.Get("wait_ms"); s != "" {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < 0 {
				http.Error(w, "wait_ms: not a non-negative integer: "+s, http.StatusBadRequest)
				return
			}
			wait = min(time.Duration(v)*time.Millisecond, maxWait)
		}
		f := actuate.HintFilter{App: q.Get("app")}
		if s := q.Get("kinds"); s != "" {
			for _, k := range strings.Split(s, ",") {
				kind := policy.HintKind(strings.TrimSpace(k))
				if !knownKind(kind) {
					http.Error(w, fmt.Sprintf("kinds: unknown hint kind %q", k), http.StatusBadRequest)
					return
				}
				f.Kinds = append(f.Kinds, kind)
			}
		}
		f.Now = l.EventNow()
		c := pull.Changes(after, f)
		if wait > 0 && !c.Reset && len(c.Hints) == 0 {
			// Long poll: wait for a delivery after the cursor, then answer
			// with whatever matches (possibly still nothing).
			t := time.NewTimer(wait)
			select {
			case <-pull.Wait(c.Cursor):
			case <-t.C:
			case <-r.Context().Done():
			}
			t.Stop()
			f.Now = l.EventNow()
			c = pull.Changes(after, f)
		}
		writeJSON(w, ChangesResponse{Changes: c, NowTS: f.Now})
	}
}

func knownKind(k policy.HintKind) bool {
	for _, known := range policy.HintKinds {
		if k == known {
			return true
		}
	}
	return false
}

// EventsResponse is POST /v1/events's answer.
type EventsResponse struct {
	Accepted int           `json:"accepted"`
	Rejected []RejectedRow `json:"rejected"`
}

// RejectedRow is one line of a POST /v1/events body that is not a valid
// event; it went to the dead-letter topic like any bad event.
type RejectedRow struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// EventProducer writes event lines into the normal event path.
type EventProducer interface {
	ProduceEvents(ctx context.Context, body []byte) (EventsResponse, error)
}

// kafkaEvents produces posted events to the events topic (node events to
// the node topic); invalid lines go there too, unkeyed, for the consumer to
// dead-letter, as `rmsidecar replay --kafka` does.
type kafkaEvents struct {
	prod      atomic.Pointer[sarama.SyncProducer]
	topic     string
	nodeTopic string
}

func (k *kafkaEvents) setProducer(p sarama.SyncProducer) { k.prod.Store(&p) }

var errNoProducer = errors.New("not connected to Kafka yet")

// ProduceEvents implements EventProducer.
func (k *kafkaEvents) ProduceEvents(ctx context.Context, body []byte) (EventsResponse, error) {
	p := k.prod.Load()
	if p == nil {
		return EventsResponse{}, errNoProducer
	}
	resp := EventsResponse{Rejected: []RejectedRow{}}
	st, err := kafka.ProduceLog(ctx, *p, bytes.NewReader(body), kafka.ProduceOptions{Topic: k.topic, NodeTopic: k.nodeTopic,
		OnInvalid: func(le *events.LineError) {
			resp.Rejected = append(resp.Rejected, RejectedRow{Line: le.Line, Error: le.Err.Error()})
		}})
	if err != nil {
		return EventsResponse{}, err
	}
	resp.Accepted = st.Produced - st.Invalid
	return resp, nil
}

func serveEvents(ev EventProducer, m *Metrics) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ev == nil {
			http.Error(w, "event ingestion is not available in this process", http.StatusNotFound)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventsBody))
		if err != nil {
			http.Error(w, "body: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		resp, err := ev.ProduceEvents(r.Context(), body)
		if err != nil {
			// The caller keeps the batch and retries: nothing was half-taken
			// that it cannot send again (event ids make a repeat harmless).
			http.Error(w, "events not taken: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		if m != nil {
			m.PostedEvents.Add(float64(resp.Accepted))
			m.PostedRejected.Add(float64(len(resp.Rejected)))
		}
		writeJSON(w, resp)
	}
}

// operatorHints takes hints from an operator (or a test) and serves them
// through the pull API, as if a policy named "operator" had decided them.
type operatorHints struct {
	pull *actuate.Pull
	now  func() int64
	n    atomic.Uint64
}

func (o *operatorHints) serve(w http.ResponseWriter, r *http.Request) {
	if o == nil || o.pull == nil {
		http.Error(w, "operator hints are off (http.operator_hints: true turns them on)", http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventsBody))
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		http.Error(w, "body: want a JSON array of hints v1: "+err.Error(), http.StatusBadRequest)
		return
	}
	hints := make([]policy.Hint, 0, len(raw))
	for i, b := range raw {
		var h policy.Hint
		if err := json.Unmarshal(b, &h); err != nil {
			http.Error(w, fmt.Sprintf("hint %d: %v", i, err), http.StatusBadRequest)
			return
		}
		hints = append(hints, h)
	}
	now := o.now()
	if now == 0 {
		now = time.Now().UnixMilli()
	}
	ids := make([]string, 0, len(hints))
	for _, h := range hints {
		if h.ID == "" {
			h.ID = fmt.Sprintf("operator-%d-%d", now, o.n.Add(1))
		}
		if h.TS == 0 {
			h.TS = now
		}
		if h.Policy == "" {
			h.Policy = "operator"
		}
		_ = o.pull.Deliver(r.Context(), h)
		ids = append(ids, h.ID)
	}
	writeJSON(w, map[string][]string{"ids": ids})
}
