package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/actuate"
	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/demo"
	"github.com/rmsidecar/rmsidecar/internal/memlimit"
	"github.com/rmsidecar/rmsidecar/profiles"
	"github.com/rmsidecar/rmsidecar/sidecar"
	"github.com/rmsidecar/rmsidecar/yarnclient"
)

// demoStack is what the embedded demo runs unless told otherwise.
const demoStack = "samr+sepb+dhsa-pi+tmar"

type runOptions struct {
	demoSpeed float64
	seed      uint64
	policies  string
}

func newRunCmd(a *app) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [--config FILE] [--http ADDR] [--policies a,b,c]",
		Short: "Run the live sidecar (with no Kafka brokers configured: an embedded demo)",
		Long: `run consumes events v1 from Kafka (kafka.events_topic in the consumer group
kafka.group, and kafka.node_topic in a group of this instance's own), applies
them to the cluster model, runs the policy stack (policies.stack, or --policies) on
every event and on every tick, and delivers the hints to the enabled actuators: log (dry
run, the default), kafka (kafka.hints_topic), http (/v1/hints), rm.

With no kafka.brokers configured, run starts an embedded Kafka broker and a
simulated cluster that feeds it in accelerated time, so events -> policies ->
hints show up within seconds. It says so in one log line.

--policies takes the policy names of sim (rmsidecar sim --help; docs/policies.md)
as one stack: "samr,sepb,dhsa-pi,tmar" is the stack samr+sepb+dhsa-pi+tmar (a
live sidecar runs one stack; sim runs one per comma).

On a console (--log-format console, or auto on a terminal) each hint is one
line: kind, target, policy, reason; a status line (events/s, hints/s, lag, dead
letters) follows every log.status_interval (10s). JSON logs carry the whole hint.

HTTP (--http, default 127.0.0.1:9464): /metrics, /healthz, /readyz, /v1/hints,
/v1/nodes, /v1/apps/{id}; /debug/pprof only with http.pprof. Beyond loopback set
http.token (or http.token_file): every path but /healthz and /readyz then needs
"Authorization: Bearer <token>"; http.tls.cert_file and key_file serve HTTPS.

Memory: runtime.memory_headroom_mb (default 16) keeps a soft memory limit
that far (or an eighth of the live heap, or what is allocated in half a
second, if more) above the live heap, so the collector runs when the heap has
grown by that much rather than doubled (at 10,000 nodes and 100,000
containers, about 94 MB live, rmsidecar bench's peak RSS at 100,000 events/s
is about 145-150 MB instead of 225); 0 turns it off, GOMEMLIMIT in the
environment wins.

SIGTERM or SIGINT: finish the events in flight, checkpoint, commit, exit 0.`,
		Example: `  rmsidecar run
  rmsidecar run --policies samr,sepb,dhsa-pi,tmar --log-format console
  rmsidecar run --config /etc/rmsidecar/config.yaml --http 0.0.0.0:9464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSidecar(cmd.Context(), a, cmd, o)
		},
	}
	f := cmd.Flags()
	f.String("http", "127.0.0.1:9464", "HTTP listen address (http.addr)")
	f.Float64Var(&o.demoSpeed, "demo-speed", 10, "embedded demo only: how much faster than recorded the simulated cluster runs")
	f.Uint64Var(&o.seed, "seed", 1, "seed for any randomness in policies")
	f.StringVar(&o.policies, "policies", "", "policies to run as one stack, comma or + separated (policies.stack; names as in sim)")
	return cmd
}

func runSidecar(ctx context.Context, a *app, cmd *cobra.Command, o runOptions) error {
	cfg, err := a.loadConfig(config.Flag{Key: "http.addr", Flag: cmd.Flags().Lookup("http")})
	if err != nil {
		return err
	}
	log := a.logger(cfg)
	// The soft limit follows the live heap (see internal/memlimit): a large
	// model's heap then does not grow to twice its size between collections.
	defer memlimit.Start(memlimit.Headroom(cfg.Runtime.MemoryHeadroomMB))()
	switch p := strings.TrimSpace(o.policies); {
	case p != "":
		cfg.Policies.Stack = strings.ReplaceAll(p, ",", "+")
	case len(cfg.Kafka.Brokers) == 0 && cfg.Policies.Stack == config.DefaultStack:
		// The embedded demo shows what several papers' policies say, not
		// only stock YARN's speculation.
		cfg.Policies.Stack = demoStack
		log.Info().Str("stack", demoStack).Msg("embedded demo: policies.stack left at its default, running several papers' policies (--policies to choose)")
	}
	rm, err := rmWriter(cfg, log)
	if err != nil {
		return err
	}
	short := cfg.Log.Format == "console" || (cfg.Log.Format == "auto" && isTerminal(a.io.err))
	so := sidecar.Options{Config: cfg, Log: log, Seed: o.seed, RM: rm, ShortHints: short}
	var feed func(context.Context)
	if len(cfg.Kafka.Brokers) == 0 {
		b, err := demo.Start(cfg.Kafka)
		if err != nil {
			return err
		}
		defer b.Close()
		cfg.Kafka.Brokers = b.Brokers()
		log.Warn().Strs("brokers", cfg.Kafka.Brokers).Str("events_topic", cfg.Kafka.EventsTopic).
			Msg("EMBEDDED DEMO MODE: no kafka.brokers configured, so an in-process Kafka broker is fed by a simulated cluster; set kafka.brokers to attach to a real cluster")
		// The embedded broker forgets everything at exit, so a checkpoint of
		// its offsets would be wrong next time, and demo jobs must not teach
		// a real profiles store: the demo learns and journals in memory.
		store := profiles.NewMemory()
		defer store.Close()
		so.Profiles, so.Journal = store, actuate.NewMemoryJournal()
		feed = func(ctx context.Context) {
			b.Feed(ctx, sidecar.KafkaClient(cfg.Kafka), cfg.Kafka, o.demoSpeed, log)
		}
	}
	sc, err := sidecar.New(ctx, so)
	if err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return &inputError{err: err}
		}
		return err
	}
	if feed != nil {
		go feed(ctx)
	}
	if err := sc.Run(ctx); err != nil {
		var ke *config.KeyError
		if errors.As(err, &ke) {
			return &inputError{err: err}
		}
		return err
	}
	return nil
}

// rmWriter builds the rm actuator's ResourceManager writer from rm.* when
// actuators.enabled names rm; nil otherwise.
func rmWriter(cfg *config.Config, log zerolog.Logger) (actuate.RMWriter, error) {
	if !slices.Contains(cfg.Actuators.Enabled, "rm") {
		return nil, nil
	}
	c, err := yarnclient.New(rmClientConfig(cfg, cfg.RM.URLs, cfg.RM.User, log.With().Str("component", "rm").Logger()))
	if err != nil {
		return nil, &inputError{err: fmt.Errorf("rm.urls: %w", err)}
	}
	return yarnclient.NewHintWriter(c), nil
}

// rmClientConfig is the RM REST client's configuration from rm.* and, with
// rm.auth: kerberos, SPNEGO from kerberos.*.
func rmClientConfig(cfg *config.Config, urls []string, user string, log zerolog.Logger) yarnclient.Config {
	c := yarnclient.Config{RMURLs: urls, User: user, Timeout: cfg.RM.Timeout, Logger: log}
	if cfg.RM.Auth == "kerberos" {
		c.SPNEGO = &yarnclient.SPNEGOConfig{Principal: cfg.Kerberos.Principal, Keytab: cfg.Kerberos.Keytab,
			Krb5Conf: cfg.Kerberos.Krb5Conf, SPN: cfg.RM.SPN}
	}
	return c
}
