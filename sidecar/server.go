package sidecar

import (
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/policy"
)

// NodeView is one node in /v1/nodes: capacity, load and class.
type NodeView struct {
	ID           string  `json:"id"`
	Rack         string  `json:"rack"`
	State        string  `json:"state"`
	VCores       int     `json:"vcores"`
	MemoryMB     int     `json:"memory_mb"`
	UsedVCores   int     `json:"used_vcores"`
	UsedMemoryMB int     `json:"used_memory_mb"`
	Load1        float64 `json:"load1"`
	CPUUtil      float64 `json:"cpu_util"`
	Running      int     `json:"running_containers"`
	MapSlow      bool    `json:"map_slow"`
	ReduceSlow   bool    `json:"reduce_slow"`
	// CapacityHint is the node-capacity hint in force, if any.
	CapacityHint *policy.Hint `json:"capacity_hint,omitempty"`
}

// AppView is /v1/apps/{id}: the app, its tasks and attempts, and the hints
// in force about it (speculation estimates, bindings, ratios, placements).
type AppView struct {
	cluster.AppSnapshot
	Hints []policy.Hint `json:"hints"`
}

// Handler serves the sidecar's HTTP API without the plug-in write calls
// (POST /v1/events, POST /v1/hints).
func Handler(l *Loop, pull *actuate.Pull, m *Metrics) http.Handler {
	return API{Loop: l, Pull: pull, Metrics: m}.Handler()
}

// API is the sidecar's HTTP API and what it serves from.
type API struct {
	Loop    *Loop
	Pull    *actuate.Pull
	Metrics *Metrics
	// Events takes POST /v1/events (nil: 404).
	Events EventProducer
	// OperatorHints lets POST /v1/hints add hints to the pull API.
	OperatorHints bool
	// Token, when not empty, is required as a bearer token on every path
	// but /healthz and /readyz (probes carry no credentials).
	Token string
	// Pprof mounts /debug/pprof.
	Pprof bool
}

// Handler builds the mux.
func (a API) Handler() http.Handler {
	l, pull, m := a.Loop, a.Pull, a.Metrics
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/hints/changes", serveChanges(l, pull))
	mux.HandleFunc("POST /v1/events", serveEvents(a.Events, m))
	var op *operatorHints
	if a.OperatorHints {
		op = &operatorHints{pull: pull, now: l.EventNow}
	}
	mux.HandleFunc("POST /v1/hints", op.serve)
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		ok, why := l.Ready()
		if !ok {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /v1/hints", func(w http.ResponseWriter, r *http.Request) {
		if pull == nil {
			http.Error(w, "the http actuator is not enabled (actuators.enabled)", http.StatusNotFound)
			return
		}
		var since int64
		if s := r.URL.Query().Get("since_ts"); s != "" {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				http.Error(w, "since_ts: not an integer", http.StatusBadRequest)
				return
			}
			since = v
		}
		hs := pull.Hints(since)
		if r.URL.Query().Get("active") == "true" {
			// Only hints still in force at the newest event time.
			now := l.EventNow()
			hs = slices.DeleteFunc(hs, func(h policy.Hint) bool { return h.ExpiresTS > 0 && h.ExpiresTS <= now })
		}
		if hs == nil {
			hs = []policy.Hint{}
		}
		writeJSON(w, hs)
	})
	mux.HandleFunc("GET /v1/nodes", func(w http.ResponseWriter, _ *http.Request) {
		var out []NodeView
		l.View(func(s *cluster.State, current map[string]policy.Hint) {
			out = nodeViews(s, current)
		})
		writeJSON(w, out)
	})
	mux.HandleFunc("GET /v1/apps/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		var out *AppView
		l.View(func(s *cluster.State, current map[string]policy.Hint) {
			out = appView(s, current, id)
		})
		if out == nil {
			http.Error(w, "no such app: "+id, http.StatusNotFound)
			return
		}
		writeJSON(w, out)
	})
	if a.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if a.Token == "" {
		return mux
	}
	return requireBearer(a.Token, mux)
}

// requireBearer answers 401 to a request without "Authorization: Bearer
// <token>", except the health probes.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" ||
			subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="rmsidecar"`)
		http.Error(w, "unauthorized: this sidecar requires Authorization: Bearer <http.token>", http.StatusUnauthorized)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func nodeViews(s *cluster.State, current map[string]policy.Hint) []NodeView {
	out := make([]NodeView, 0, len(s.Nodes()))
	byNode := map[string]int{}
	for _, n := range s.Nodes() {
		byNode[n.ID] = len(out)
		out = append(out, NodeView{ID: n.ID, Rack: n.Rack, State: string(n.State), VCores: n.VCores, MemoryMB: n.MemoryMB,
			UsedVCores: n.UsedVCores, UsedMemoryMB: n.UsedMemoryMB, Load1: n.Load1, CPUUtil: n.CPUUtil, Running: len(n.Running)})
	}
	now := s.Now()
	for _, h := range current {
		i, ok := byNode[h.Node]
		if !ok || h.ExpiresTS <= now {
			continue
		}
		switch h.Kind {
		case policy.KindNodeClass:
			out[i].MapSlow, out[i].ReduceSlow = h.MapSlow, h.ReduceSlow
		case policy.KindNodeCapacity:
			hc := h
			out[i].CapacityHint = &hc
		}
	}
	slices.SortFunc(out, func(a, b NodeView) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func appView(s *cluster.State, current map[string]policy.Hint, id string) *AppView {
	a := s.App(id)
	if a == nil {
		return nil
	}
	// Copy what the response shows while the engine is held still; the JSON
	// is written after the lock is released.
	v := &AppView{AppSnapshot: cluster.AppSnapshot{App: *a}, Hints: []policy.Hint{}}
	v.App.Tasks, v.App.Count = nil, nil
	v.App.InputPaths = slices.Clone(a.InputPaths)
	for _, t := range a.Tasks {
		ts := cluster.TaskSnapshot{Task: *t}
		ts.Task.App, ts.Task.Attempts = nil, nil
		ts.Splits = slices.Clone(t.Splits)
		for _, at := range t.Attempts {
			c := *at
			c.Task = nil
			c.Output = slices.Clone(at.Output)
			ts.Attempts = append(ts.Attempts, c)
		}
		v.Tasks = append(v.Tasks, ts)
	}
	for _, h := range current {
		if h.App == id && h.ExpiresTS > s.Now() {
			v.Hints = append(v.Hints, h)
		}
	}
	slices.SortFunc(v.Hints, func(a, b policy.Hint) int { return cmp.Compare(a.Target(), b.Target()) })
	return v
}
