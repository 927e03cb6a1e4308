package sidecar

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/engine"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
	"github.com/rmsidecar/rmsidecar/policy/plugins"
	"github.com/rmsidecar/rmsidecar/profiles"
)

// Store is the profiles store the sidecar keeps learned state and its
// checkpoint in.
type Store interface {
	policy.ProfileStore
	Close() error
}

// Options configure a Sidecar.
type Options struct {
	Config *config.Config
	// Registry resolves policies.stack (nil: every built-in policy).
	Registry policy.Registry
	// Profiles is the store (nil: open Config.Profiles.Path).
	Profiles Store
	// Actuators are added to those Config.Actuators enables (tests record hints).
	Actuators []actuate.Actuator
	// RM backs the rm actuator; required when it is enabled.
	RM  actuate.RMWriter
	Log zerolog.Logger
	// Seed makes the policies' randomness reproducible.
	Seed uint64
	// DeterministicTicks turns off the wall-clock idle tick, so the hints
	// depend on the events only (replays, golden tests).
	DeterministicTicks bool
	// Journal remembers actuated hints across restarts (nil: open the file
	// actuators.journal; the embedded demo passes a memory journal).
	Journal actuate.Journal
	// ShortHints makes the log actuator write one short line per hint (a
	// console) instead of the hint's JSON.
	ShortHints bool
	// HealthInterval is how often the brokers are probed and the actuators'
	// health is copied to readiness (default 2s).
	HealthInterval time.Duration
}

// Sidecar is one live instance.
type Sidecar struct {
	o            Options
	cfg          *config.Config
	store        Store
	ownStore     bool
	metrics      *Metrics
	loop         *Loop
	disp         *actuate.Dispatcher
	pull         *actuate.Pull
	journal      actuate.Journal
	closeJournal func() error
	instance     string
	log          zerolog.Logger

	// hintsKafka is the kafka actuator when enabled (connected in Run).
	hintsKafka *actuate.Kafka
	// outbox are the undelivered hints of the restored checkpoint, handed
	// to the dispatcher once it runs.
	outbox []policy.Hint
	// posted produces POST /v1/events bodies once Kafka is reached.
	posted *kafkaEvents

	httpMu   sync.Mutex
	httpAddr string
	httpUp   chan struct{}
}

// New builds the engine from the config and the last checkpoint.
func New(ctx context.Context, o Options) (*Sidecar, error) {
	cfg := o.Config
	if cfg == nil {
		return nil, errors.New("sidecar: no config")
	}
	s := &Sidecar{o: o, cfg: cfg, metrics: NewMetrics(), log: o.Log, httpUp: make(chan struct{}),
		posted: &kafkaEvents{topic: cfg.Kafka.EventsTopic, nodeTopic: cfg.Kafka.NodeTopic}}
	s.instance = cfg.Kafka.Instance
	if s.instance == "" {
		h, err := os.Hostname()
		if err != nil {
			h = "rmsidecar"
		}
		s.instance = h
	}
	if len(cfg.Kafka.Brokers) == 0 {
		// `rmsidecar run` starts the embedded demo (package demo) and sets
		// the brokers before it gets here.
		return nil, &config.KeyError{Key: "kafka.brokers", Reason: "no brokers"}
	}
	s.store = o.Profiles
	if s.store == nil {
		db, err := profiles.Open(cfg.Profiles.Path, profiles.Options{})
		if err != nil {
			return nil, fmt.Errorf("profiles.path: %w", err)
		}
		s.store, s.ownStore = db, true
	}
	ok := false
	defer func() {
		if !ok {
			s.closeStore()
			if s.closeJournal != nil {
				_ = s.closeJournal()
			}
		}
	}()
	reg := o.Registry
	if reg == nil {
		reg = plugins.NewRegistry()
	}
	stack, err := reg.Build(ctx, cfg.Policies.Stack, policy.Handle{Args: config.PolicyArgs(cfg.Policies.Settings),
		Profiles: s.store, Log: o.Log, Seed: o.Seed})
	if err != nil {
		return nil, &config.KeyError{Key: "policies.stack", Reason: err.Error()}
	}
	ckpts := ProfileCheckpoints{Store: s.store}
	restoreStart := time.Now()
	ck, err := ckpts.Load(ctx)
	if err != nil {
		return nil, err
	}
	var restoreTook time.Duration // loading, decoding and installing the checkpoint
	eopts := engine.Options{TickMS: cfg.Engine.Tick.Milliseconds(), Log: o.Log, IDPrefix: s.instance + "-"}
	// Finished apps leave the model after model.retain_finished: a live
	// sidecar runs for weeks and must not hold every app it ever saw.
	retain := cluster.WithRetention(cluster.Retention{AfterMS: cfg.Model.RetainFinished.Milliseconds(),
		MaxFinished: cfg.Model.MaxFinished})
	eopts.State = cluster.New(retain)
	if ck != nil {
		st, err := cluster.Restore(ck.Cluster, retain)
		if err != nil {
			return nil, fmt.Errorf("checkpoint in %s: %w", cfg.Profiles.Path, err)
		}
		eopts.State, eopts.Resume = st, &ck.Engine
	}
	eng := engine.New(stack, eopts)
	if ck != nil {
		restoreTook = time.Since(restoreStart)
		sum := eopts.State.Summarize()
		o.Log.Info().Int("nodes", sum.Nodes).Int("apps", sum.Apps).Int("partitions", len(ck.Positions)).
			Dur("took", restoreTook).Msg("resuming from checkpoint")
	}

	var acts []actuate.Actuator
	for _, name := range cfg.Actuators.Enabled {
		switch name {
		case "log":
			acts = append(acts, actuate.Log{Log: o.Log, Short: o.ShortHints})
		case "http":
			// Always on (below): the contract has `run --http` serve /v1/hints.
		case "rm":
			if o.RM == nil {
				return nil, &config.KeyError{Key: "actuators.enabled", Reason: "rm: no ResourceManager writer in this build"}
			}
			acts = append(acts, actuate.RM{W: o.RM})
		case "kafka":
			// Last (below): after the pull API and the caller's actuators.
		}
	}
	// The pull API keeps the newest hints for GET /v1/hints whatever else
	// is enabled, so a dry run can be watched over HTTP too.
	s.pull = actuate.NewPull(1000)
	acts = append(acts, s.pull)
	acts = append(acts, o.Actuators...)
	if slices.Contains(cfg.Actuators.Enabled, "kafka") {
		s.hintsKafka = actuate.NewKafka(KafkaClient(cfg.Kafka), cfg.Kafka.HintsTopic)
		acts = append(acts, s.hintsKafka)
	}
	s.journal = o.Journal
	if s.journal == nil {
		fj, err := actuate.OpenFileJournal(cfg.Actuators.Journal)
		if err != nil {
			return nil, &config.KeyError{Key: "actuators.journal", Reason: err.Error()}
		}
		for _, err := range fj.Skipped {
			// Dropped by the rewrite at open: say so once, here.
			ev := o.Log.Warn().Err(err).Str("file", cfg.Actuators.Journal)
			if le, ok := errors.AsType[*actuate.JournalLineError](err); ok {
				ev = ev.Int("line", le.Line)
			}
			ev.Msg("actuation journal: skipped a line that is not a valid entry")
		}
		s.journal, s.closeJournal = fj, fj.Close
	}
	idle := cfg.Engine.Tick
	if o.DeterministicTicks {
		idle = 0
	}
	// The dispatcher asks the loop who leads and what time it is: both are
	// the loop's, which is built right after with the dispatcher as its sink.
	s.disp = actuate.NewDispatcher(actuate.Options{Actuators: acts, Journal: s.journal, Leader: s.leader,
		QueueSize: cfg.Engine.QueueSize, Metrics: s.metrics, Log: o.Log, Now: s.eventNow,
		AttemptTimeout: cfg.RM.Timeout, DrainTimeout: drainTimeout})
	for _, a := range acts {
		s.metrics.Degraded(a.Name(), false) // the gauge exists from the start (before a worker can set it)
	}
	s.loop = NewLoop(eng, LoopOptions{QueueSize: cfg.Engine.QueueSize, IdleTick: idle, Checkpoints: ckpts,
		Sink: s.disp, Metrics: s.metrics, Log: o.Log, EventsTopic: cfg.Kafka.EventsTopic, HostAliases: events.NewHostAliases(cfg.Model.AliasPairs())})
	if ck != nil {
		// Hints that expired (in event time) before the checkpoint are of
		// no use any more.
		for _, h := range ck.Outbox {
			if h.ExpiresTS == 0 || h.ExpiresTS > eopts.State.Now() {
				s.outbox = append(s.outbox, h)
			}
		}
		s.loop.Resume(ck.Positions)
		s.loop.Restored(restoreTook)
	}
	ok = true
	return s, nil
}

// leader and eventNow are the loop's, for the dispatcher.
func (s *Sidecar) leader() bool    { return s.loop.Leader() }
func (s *Sidecar) eventNow() int64 { return s.loop.EventNow() }

// Loop is the engine loop (tests read its counters and state).
func (s *Sidecar) Loop() *Loop { return s.loop }

// Metrics are the sidecar's metrics.
func (s *Sidecar) Metrics() *Metrics { return s.metrics }

// HTTPAddr waits until the HTTP server listens and returns its address.
func (s *Sidecar) HTTPAddr(ctx context.Context) (string, error) {
	select {
	case <-s.httpUp:
		s.httpMu.Lock()
		defer s.httpMu.Unlock()
		return s.httpAddr, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Abort simulates a kill: the loop stops without a final checkpoint or
// commit and queued hints are not delivered. Cancel Run's context after it.
func (s *Sidecar) Abort() {
	s.loop.Abort()
	s.disp.Abort()
}

func (s *Sidecar) closeStore() {
	if s.ownStore {
		if err := s.store.Close(); err != nil {
			s.log.Warn().Err(err).Msg("closing profiles store")
		}
	}
}

// KafkaClient is the Kafka connection of the kafka.* settings k: brokers,
// protocol version, client id, assignor, TLS and SASL.
func KafkaClient(k config.Kafka) kafka.Client {
	return kafka.Client{Brokers: k.Brokers, Version: k.Version, ClientID: k.ClientID, Assignor: k.Assignor,
		TLS: kafka.TLS{Enabled: k.TLS.Enabled, CAFile: k.TLS.CAFile, CertFile: k.TLS.CertFile, KeyFile: k.TLS.KeyFile,
			InsecureSkipVerify: k.TLS.InsecureSkipVerify},
		SASL: kafka.SASL{Enabled: k.SASL.Enabled, Mechanism: k.SASL.Mechanism, User: k.SASL.User, Password: string(k.SASL.Password)}}
}

// Run consumes, decides and actuates until ctx is done, then finishes the
// work in flight, checkpoints, commits and returns nil.
func (s *Sidecar) Run(ctx context.Context) (err error) {
	defer s.closeStore()
	defer func() {
		if s.closeJournal == nil {
			return
		}
		if cerr := s.closeJournal(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	brokers := s.cfg.Kafka.Brokers
	kc := KafkaClient(s.cfg.Kafka)
	if _, err := kafka.SaramaConfig(kc); err != nil {
		return &config.KeyError{Key: "kafka", Reason: err.Error()}
	}
	// Every goroutine Run starts has ended when Run returns: one that logs
	// or touches the loop after the caller has moved on is a race.
	var background sync.WaitGroup
	defer background.Wait()
	healthCtx, stopHealth := context.WithCancel(ctx)
	defer stopHealth()
	background.Go(func() { s.watchBrokers(healthCtx, brokers) })

	// HTTP first: /healthz answers and /readyz explains while Kafka is
	// being reached.
	srv, err := s.serveHTTP()
	if err != nil {
		return err
	}
	defer func() {
		if srv != nil {
			sctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = srv.Shutdown(sctx)
			cancel()
		}
	}()

	if s.hintsKafka != nil {
		defer s.hintsKafka.Close()
		if err := s.retry(ctx, "hints producer", s.hintsKafka.Connect); err != nil {
			return nil // stopped while Kafka was unreachable: nothing to commit
		}
	}
	var dlqProd sarama.SyncProducer
	if err := s.retry(ctx, "dead-letter producer", func() (err error) {
		dlqProd, err = kafka.NewProducer(kc)
		return err
	}); err != nil {
		return nil
	}
	defer dlqProd.Close()
	dead := kafka.NewDeadLetterProducer(dlqProd, s.cfg.Kafka.DeadLetterTopic)
	s.recallDeadLetters(ctx, kc, dead)
	s.posted.setProducer(dlqProd) // the same acks=all producer serves POST /v1/events

	actCtx, stopActs := context.WithCancel(context.WithoutCancel(ctx))
	defer stopActs()
	s.disp.Start(actCtx)
	background.Go(func() { s.watchActuators(healthCtx) })
	if outbox := s.outbox; len(outbox) > 0 {
		background.Go(func() { s.redispatch(healthCtx, outbox) })
		s.outbox = nil
	}

	loopCtx, stopLoop := context.WithCancel(context.WithoutCancel(ctx))
	defer stopLoop()
	loopErr := make(chan error, 1)
	go func() { loopErr <- s.loop.Run(loopCtx) }()

	if iv := s.cfg.Log.StatusInterval; iv > 0 {
		background.Go(func() { s.logStatus(healthCtx, iv) })
	}

	groups := []struct{ group, topic string }{
		{s.cfg.Kafka.Group, s.cfg.Kafka.EventsTopic},
		// Every instance reads every node event: its own group on the node topic.
		{s.cfg.Kafka.Group + ".nodes." + s.instance, s.cfg.Kafka.NodeTopic},
	}
	var wg sync.WaitGroup
	var consumers []*kafka.GroupConsumer
	for _, g := range groups {
		var gc *kafka.GroupConsumer
		if err := s.retry(ctx, "consumer group "+g.group, func() (err error) {
			gc, err = kafka.JoinGroup(kc, g.group, kafka.GroupOptions{Topics: []string{g.topic}, Feed: s.loop,
				DeadLetters: dead, CommitInterval: s.cfg.Kafka.CommitInterval,
				OnError: func(err error) { s.log.Warn().Err(err).Str("group", g.group).Msg("kafka") }})
			return err
		}); err != nil {
			break // stopped while Kafka was unreachable; shut down what runs
		}
		consumers = append(consumers, gc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = gc.Run(ctx)
		}()
	}
	s.log.Info().Strs("brokers", brokers).Str("group", s.cfg.Kafka.Group).Str("instance", s.instance).
		Str("stack", s.cfg.Policies.Stack).Strs("actuators", s.cfg.Actuators.Enabled).Msg("sidecar running")

	<-ctx.Done()
	s.log.Info().Msg("shutting down: finishing in-flight events, committing")
	// Every step of the shutdown is bounded, so SIGTERM ends the process
	// within 10 s whatever is down: a broker that does not answer the final
	// commit only costs re-reading those events after the restart.
	if !waitTimeout(wg.Wait, consumerStopTimeout) { // each consumer committed what the loop applied
		s.log.Warn().Dur("after", consumerStopTimeout).Msg("consumers did not stop in time; their last offsets may be re-read")
	}
	if !waitTimeout(func() {
		for _, c := range consumers {
			if err := c.Close(); err != nil {
				s.log.Warn().Err(err).Msg("closing consumer group")
			}
		}
	}, consumerCloseTimeout) {
		s.log.Warn().Msg("closing the consumer groups timed out")
	}
	stopLoop()
	err = <-loopErr
	s.disp.Close()
	s.log.Info().Uint64("applied", s.loop.Applied()).Uint64("rejected", s.loop.Rejected()).Msg("stopped")
	return err
}

// Shutdown budget (SIGTERM to exit within 10 s): consumers' final commit,
// closing the groups, the actuators' drain (plus 1 s for deliveries to
// notice cancellation) and the HTTP server's shutdown.
const (
	consumerStopTimeout  = 3 * time.Second
	consumerCloseTimeout = time.Second
	drainTimeout         = 2 * time.Second
)

// waitTimeout runs f and reports whether it returned within d (f runs on
// regardless: it is only abandoned to the process's exit).
func waitTimeout(f func(), d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func (s *Sidecar) healthInterval() time.Duration {
	if s.o.HealthInterval > 0 {
		return s.o.HealthInterval
	}
	return 2 * time.Second
}

// watchBrokers probes the brokers until ctx is done: the sidecar is ready
// only while at least one accepts a connection. The consumer groups retry on
// their own; without this, /readyz stayed 200 and the lag gauges froze at
// their last values during a broker outage.
func (s *Sidecar) watchBrokers(ctx context.Context, brokers []string) {
	t := time.NewTicker(s.healthInterval())
	defer t.Stop()
	wasUp := true
	for {
		err := probeBrokers(ctx, brokers, min(time.Second, s.healthInterval()))
		if ctx.Err() != nil {
			return
		}
		up := err == nil
		if up {
			s.loop.SetBrokerHealth(true, "")
			s.metrics.brokerUp.Set(1)
		} else {
			s.loop.SetBrokerHealth(false, err.Error())
			s.metrics.brokerUp.Set(0)
		}
		if up != wasUp {
			ev := s.log.Info()
			if !up {
				ev = s.log.Warn().Err(err)
			}
			ev.Bool("up", up).Msg("kafka brokers reachability changed")
			wasUp = up
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// probeBrokers returns nil once one broker accepts a TCP connection.
func probeBrokers(ctx context.Context, brokers []string, timeout time.Duration) error {
	var errs []error
	for _, b := range brokers {
		d := net.Dialer{Timeout: timeout}
		c, err := d.DialContext(ctx, "tcp", b)
		if err == nil {
			_ = c.Close()
			return nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return errors.New("no brokers configured")
	}
	return fmt.Errorf("no broker reachable: %w", errors.Join(errs...))
}

// redispatch hands the restored checkpoint's undelivered hints to the
// dispatcher once partitions are assigned: before that this instance does not
// know whether it leads, and a non-leader's dispatcher skips cluster-wide
// hints.
func (s *Sidecar) redispatch(ctx context.Context, hs []policy.Hint) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for !s.loop.isAssigned() {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
	n, err := s.disp.Dispatch(ctx, hs)
	if err != nil {
		s.log.Warn().Err(err).Msg("re-dispatching the checkpoint's undelivered hints")
		return
	}
	s.log.Info().Int("hints", n).Msg("re-dispatched the checkpoint's undelivered hints")
}

// watchActuators copies the dispatcher's degraded actuators to readiness.
func (s *Sidecar) watchActuators(ctx context.Context) {
	t := time.NewTicker(min(time.Second, s.healthInterval()))
	defer t.Stop()
	for {
		s.loop.SetDegraded(s.disp.Degraded())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// retry runs connect until it succeeds or ctx is done, backing off from 1 s
// to 30 s: Kafka being unreachable degrades the sidecar (it waits and says
// so), it does not end it.
func (s *Sidecar) retry(ctx context.Context, what string, connect func() error) error {
	delay := time.Second
	for {
		err := connect()
		if err == nil {
			return nil
		}
		s.log.Warn().Err(err).Str("what", what).Dur("retry_in", delay).Msg("kafka unreachable; retrying")
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// loopback reports whether addr (host:port) listens on a loopback address only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Sidecar) serveHTTP() (*http.Server, error) {
	addr := s.cfg.HTTP.Addr
	if addr == "" {
		close(s.httpUp)
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &config.KeyError{Key: "http.addr", Reason: err.Error()}
	}
	token, err := s.cfg.HTTP.BearerToken()
	if err != nil {
		ln.Close()
		return nil, err
	}
	api := API{Loop: s.loop, Pull: s.pull, Metrics: s.metrics, Events: s.posted, OperatorHints: s.cfg.HTTP.OperatorHints,
		Token: token, Pprof: s.cfg.HTTP.Pprof}
	srv := &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 5 * time.Second}
	tlsCfg := s.cfg.HTTP.TLS
	s.httpMu.Lock()
	s.httpAddr = ln.Addr().String()
	s.httpMu.Unlock()
	close(s.httpUp)
	go func() {
		serve := func() error { return srv.Serve(ln) }
		if tlsCfg.Enabled() {
			serve = func() error { return srv.ServeTLS(ln, tlsCfg.CertFile, tlsCfg.KeyFile) }
		}
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("http server")
		}
	}()
	paths := "/metrics /healthz /readyz /v1/hints /v1/hints/changes /v1/events /v1/nodes /v1/apps/{id}"
	if api.Pprof {
		paths += " /debug/pprof"
	}
	s.log.Info().Str("addr", s.httpAddr).Bool("tls", tlsCfg.Enabled()).Bool("token", token != "").Msg("http: " + paths)
	if token == "" && !loopback(s.httpAddr) {
		s.log.Warn().Str("addr", s.httpAddr).Msg("http: listening beyond loopback without http.token: anyone who reaches it can read hints and post events")
	}
	return srv, nil
}

// logStatus logs a status line every interval until ctx ends: event and hint
// rates over the interval, consumer lag and dead letters so far.
func (s *Sidecar) logStatus(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	prev, _ := s.metrics.Totals()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			cur, err := s.metrics.Totals()
			if err != nil {
				s.log.Debug().Err(err).Msg("status line")
				continue
			}
			s.log.Info().Msg(StatusLine(prev, cur, now.Sub(last)))
			prev, last = cur, now
		}
	}
}

// StatusLine is one status line: rates between two totals taken span apart.
func StatusLine(prev, cur Totals, span time.Duration) string {
	sec := span.Seconds()
	if sec <= 0 {
		sec = 1
	}
	return fmt.Sprintf("status: %.0f events/s, %.1f hints/s, lag %.0f, dead letters %.0f",
		(cur.Events-prev.Events)/sec, (cur.Hints-prev.Hints)/sec, cur.Lag, cur.DeadLetters)
}

// recallDeadLetters reads the dead-letter topic's tail so a bad record
// consumed again after a crash is not dead-lettered twice. A failure costs
// only that: it is logged and the sidecar goes on.
func (s *Sidecar) recallDeadLetters(ctx context.Context, kc kafka.Client, dead *kafka.DeadLetterProducer) {
	cfg, err := kafka.SaramaConfig(kc)
	if err == nil {
		var c sarama.Client
		if c, err = sarama.NewClient(kc.Brokers, cfg); err == nil {
			defer c.Close()
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			var n int
			if n, err = dead.Recall(rctx, c, kafka.DefaultDeadLetterTail); err == nil {
				s.log.Info().Int("records", n).Str("topic", s.cfg.Kafka.DeadLetterTopic).Msg("dead letters already written, not to be written again")
				return
			}
		}
	}
	s.log.Warn().Err(err).Msg("dead-letter topic not read: a bad event consumed again after a crash may be dead-lettered twice")
}
