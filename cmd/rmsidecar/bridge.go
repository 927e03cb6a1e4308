package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"
	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/sidecar"
	"github.com/rmsidecar/rmsidecar/yarnclient"
)

type bridgeOptions struct {
	rm        string
	user      string
	kafka     string
	topic     string
	nodeTopic string
	interval  time.Duration
	once      bool
	http      string
	hdfsConf  string
}

func newBridgeCmd(a *app) *cobra.Command {
	var o bridgeOptions
	cmd := &cobra.Command{
		Use:   "bridge [--rm URLS] [--kafka BROKERS --topic T] [--interval D]",
		Short: "Poll a stock YARN cluster (RM and MapReduce AM REST) and publish events v1",
		Long: `bridge is the event source for an unmodified YARN cluster. Every --interval it
reads the ResourceManager REST API (nodes, apps, each running app's attempts and
containers) and, through the RM web proxy, each MapReduce ApplicationMaster (job,
tasks, attempts of unfinished tasks; the job configuration once per app), diffs
the snapshot against the previous one and publishes the changes as events v1.

With --kafka (or kafka.brokers in the config) events go to --topic (default
kafka.events_topic), keyed by app id, else node id; --node-topic sends node
events to a topic of their own. Without brokers the events are written to
stdout as JSONL.

Nothing is lost to an outage: while the RM is unreachable (each call is retried
with backoff, then the poll fails with the error logged) the previous snapshot
stays, so the next successful poll reports everything that changed meanwhile;
while Kafka is unreachable the events wait in order for the next poll.

Cost per poll: 3 RM calls (nodes, active apps, apps finished since the last
poll) + 2 per running app (attempts, containers) + for each running MapReduce
app 2 AM calls (jobs, tasks) and 1 per started, unfinished task (+1 once per
app for the job configuration). Each poll's calls and
latency are logged at info level. A shorter interval sees short tasks and
sharper progress rates at the price of more REST load on the RM and the AMs.

Input split locality: with a Hadoop conf dir (--hdfs-conf, else hdfs.conf_dir,
else $HADOOP_CONF_DIR) each MapReduce job's input paths are resolved once through
the NameNode (colinmarc/hdfs RPC for listings, WebHDFS for block locations;
cached for hdfs.cache_ttl, at most hdfs.cache_entries paths, racks from
hdfs.topology_file) into its splits as FileInputFormat cuts them, and map i's
task.pending carries split i with its block hosts. NameNode down: task.pending
goes out without splits (or with a stale cached answer), counted in
rmsidecar_bridge_splits_total{result}; polls go on.

HTTP (--http, default 127.0.0.1:9465; "" turns it off; not with --once):
/metrics (rmsidecar_bridge_*: polls by result, events published, REST calls,
poll time, pending events, rm_up), /healthz, and /readyz, which is 503 until
a poll reaches the RM and whenever the last poll failed.

SIGTERM or SIGINT: stop after the poll in flight, exit 0.`,
		Example: `  rmsidecar bridge --rm http://rm1:8088,http://rm2:8088 --kafka broker1:9092 --topic rmsidecar.events
  rmsidecar bridge --rm http://localhost:8088 --once > snapshot.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBridge(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.rm, "rm", "", "ResourceManager web address(es), comma list for RM HA (default: config rm.urls)")
	f.StringVar(&o.user, "user", "", "user.name for the RM REST API (default: config rm.user)")
	f.StringVar(&o.kafka, "kafka", "", "Kafka brokers, comma list (default: config kafka.brokers; none: JSONL to stdout)")
	f.StringVar(&o.topic, "topic", "", "topic for the events (default: config kafka.events_topic)")
	f.StringVar(&o.nodeTopic, "node-topic", "", "send node.* events to this topic instead (e.g. config kafka.node_topic)")
	f.DurationVar(&o.interval, "interval", 5*time.Second, "time between polls")
	f.BoolVar(&o.once, "once", false, "poll once, publish, and exit (1 if the poll failed)")
	f.StringVar(&o.http, "http", "127.0.0.1:9465", `serve /metrics, /healthz, /readyz here ("" = off)`)
	f.StringVar(&o.hdfsConf, "hdfs-conf", "", `Hadoop conf dir for input split locality (default: hdfs.conf_dir, else $HADOOP_CONF_DIR; "none" = off)`)
	return cmd
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runBridge(ctx context.Context, a *app, o bridgeOptions) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	log := a.logger(cfg)
	if o.interval <= 0 {
		return badInput("--interval: must be > 0, got %v", o.interval)
	}
	rmURLs := splitList(o.rm)
	if len(rmURLs) == 0 {
		rmURLs = cfg.RM.URLs
	}
	if len(rmURLs) == 0 {
		return badInput("--rm: no ResourceManager address (flag or rm.urls)")
	}
	for _, u := range rmURLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return badInput("--rm: %q is not an http(s)://host:port address", u)
		}
	}
	user := o.user
	if user == "" {
		user = cfg.RM.User
	}
	client, err := yarnclient.New(rmClientConfig(cfg, rmURLs, user, log.With().Str("component", "yarnclient").Logger()))
	if err != nil {
		return badInput("--rm: %v", err)
	}

	var pub yarnclient.Publisher
	brokers := splitList(o.kafka)
	if len(brokers) == 0 {
		brokers = cfg.Kafka.Brokers
	}
	dest := "stdout"
	if len(brokers) > 0 {
		topic := o.topic
		if topic == "" {
			topic = cfg.Kafka.EventsTopic
		}
		kc := sidecar.KafkaClient(cfg.Kafka)
		kc.Brokers, kc.ClientID = brokers, kc.ClientID+"-bridge"
		prod, err := kafka.NewProducer(kc)
		if err != nil {
			return fmt.Errorf("--kafka: %w", err)
		}
		defer prod.Close()
		pub = &kafkaPublisher{Producer: prod, Topic: topic, NodeTopic: o.nodeTopic}
		dest = topic + "@" + strings.Join(brokers, ",")
	} else {
		if o.topic != "" || o.nodeTopic != "" {
			return badInput("--topic and --node-topic need Kafka brokers (--kafka or kafka.brokers)")
		}
		pub = &lineWriter{w: a.io.out}
	}

	status := newBridgeStatus()
	splits, closeSplits, err := bridgeSplits(cfg, o.hdfsConf, a.env, status, log)
	if err != nil {
		return err
	}
	defer closeSplits()
	src := &countingSource{Source: client}
	b, err := yarnclient.NewBridge(yarnclient.BridgeConfig{Source: src, Publisher: pub, Splits: splits,
		Logger: log.With().Str("component", "bridge").Logger()})
	if err != nil {
		return err
	}
	status.splitStats = b.SplitStats
	if o.http != "" && !o.once {
		stop, err := status.serve(ctx, o.http)
		if err != nil {
			return badInput("%v", err)
		}
		defer stop()
	}
	log.Info().Strs("rm", rmURLs).Str("to", dest).Dur("interval", o.interval).Str("http", o.http).Msg("bridge: polling")
	poll := func() error {
		src.calls.Store(0)
		start := time.Now()
		n, err := b.Poll(ctx)
		status.observe(n, src.calls.Load(), time.Since(start), b.Pending(), err)
		ev := log.Info()
		if err != nil {
			ev = log.Warn().Err(err)
		}
		ev.Int("events", n).Int64("rest_calls", src.calls.Load()).
			Float64("poll_ms", float64(time.Since(start).Microseconds())/1000).
			Int("pending", b.Pending()).Msg("bridge: poll")
		return err
	}
	if o.once {
		if err := poll(); err != nil {
			return err // names the bridge, the RM call and the attempts
		}
		return nil
	}
	t := time.NewTicker(o.interval)
	defer t.Stop()
	for {
		_ = poll() // logged; the next poll retries and loses nothing
		select {
		case <-ctx.Done():
			if p := b.Pending(); p > 0 {
				log.Warn().Int("pending", p).Msg("bridge: stopping with events not published")
			}
			return nil
		case <-t.C:
		}
	}
}

// kafkaPublisher publishes the bridge's events with a sarama SyncProducer,
// keyed by the event key (app id, else node id), so every event of an app
// lands in one partition, in order.
type kafkaPublisher struct {
	Producer sarama.SyncProducer
	Topic    string
	// NodeTopic, when set, receives node.* events instead of Topic.
	NodeTopic string
}

// Publish implements yarnclient.Publisher.
func (p *kafkaPublisher) Publish(_ context.Context, key string, value []byte) error {
	topic := kafka.TopicFor(typeOf(value), p.Topic, p.NodeTopic)
	msg := &sarama.ProducerMessage{Topic: topic, Value: sarama.ByteEncoder(value)}
	if key != "" {
		msg.Key = sarama.StringEncoder(key)
	}
	if _, _, err := p.Producer.SendMessage(msg); err != nil {
		return fmt.Errorf("produce to %s: %w", topic, err)
	}
	return nil
}

// typeOf reads only the type of an encoded event ("" when it has none).
func typeOf(value []byte) events.Type {
	var head struct {
		Type events.Type `json:"type"`
	}
	_ = json.Unmarshal(value, &head)
	return head.Type
}

// lineWriter publishes events as JSONL lines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Publish(_ context.Context, _ string, value []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(append(value, '\n')); err != nil {
		return fmt.Errorf("write event: %w", err)
	}
	return nil
}

// countingSource counts the REST calls of a poll (the bridge's overhead).
type countingSource struct {
	yarnclient.Source
	calls atomic.Int64
}

func (c *countingSource) Nodes(ctx context.Context, f yarnclient.NodesFilter) ([]yarnclient.Node, error) {
	c.calls.Add(1)
	return c.Source.Nodes(ctx, f)
}

func (c *countingSource) Apps(ctx context.Context, f yarnclient.AppsFilter) ([]yarnclient.App, error) {
	c.calls.Add(1)
	return c.Source.Apps(ctx, f)
}

func (c *countingSource) App(ctx context.Context, appID string) (*yarnclient.App, error) {
	c.calls.Add(1)
	return c.Source.App(ctx, appID)
}

func (c *countingSource) AppAttempts(ctx context.Context, appID string) ([]yarnclient.AppAttempt, error) {
	c.calls.Add(1)
	return c.Source.AppAttempts(ctx, appID)
}

func (c *countingSource) Containers(ctx context.Context, appID, attemptID string) ([]yarnclient.Container, error) {
	c.calls.Add(1)
	return c.Source.Containers(ctx, appID, attemptID)
}

func (c *countingSource) MRJobs(ctx context.Context, appID string) ([]yarnclient.MRJob, error) {
	c.calls.Add(1)
	return c.Source.MRJobs(ctx, appID)
}

func (c *countingSource) MRTasks(ctx context.Context, appID, jobID, taskType string) ([]yarnclient.MRTask, error) {
	c.calls.Add(1)
	return c.Source.MRTasks(ctx, appID, jobID, taskType)
}

func (c *countingSource) MRTaskAttempts(ctx context.Context, appID, jobID, taskID string) ([]yarnclient.MRTaskAttempt, error) {
	c.calls.Add(1)
	return c.Source.MRTaskAttempts(ctx, appID, jobID, taskID)
}

func (c *countingSource) MRJobConf(ctx context.Context, appID, jobID string) (*yarnclient.JobConf, error) {
	c.calls.Add(1)
	return c.Source.MRJobConf(ctx, appID, jobID)
}

var (
	_ yarnclient.Publisher = (*kafkaPublisher)(nil)
	_ yarnclient.Publisher = (*lineWriter)(nil)
)
