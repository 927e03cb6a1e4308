package kafka

import (
	"github.com/rmsidecar/rmsidecar/events"

	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/xdg-go/scram"
)

// Client are the connection settings every Kafka client of rmsidecar
// shares (the config package fills them from kafka.*).
type Client struct {
	Brokers  []string
	Version  string // broker protocol version, e.g. "3.9.0"; at least 2.1.0
	ClientID string
	Assignor string // sticky, cooperative-sticky, range, roundrobin
	TLS      TLS
	SASL     SASL
}

// TLS configures TLS to the brokers.
type TLS struct {
	Enabled            bool
	CAFile             string
	CertFile, KeyFile  string
	InsecureSkipVerify bool
}

// SASL configures SASL authentication (SCRAM-SHA-256, SCRAM-SHA-512, PLAIN).
type SASL struct {
	Enabled   bool
	Mechanism string
	User      string
	Password  string
}

// minKafkaVersion is the oldest protocol the consumer group needs: 2.1.0
// brings the fetch and offset-commit versions with leader epochs and
// KIP-211 commit semantics that at-least-once relies on.
var minKafkaVersion = sarama.V2_1_0_0

// SaramaConfig builds the sarama configuration for c: protocol version,
// assignor, TLS, SASL. Offsets are committed explicitly (auto-commit off)
// because the live loop commits only what it has applied and checkpointed.
func SaramaConfig(c Client) (*sarama.Config, error) {
	cfg := sarama.NewConfig()
	v, err := sarama.ParseKafkaVersion(c.Version)
	if err != nil {
		return nil, fmt.Errorf("kafka.version: %w", err)
	}
	if !v.IsAtLeast(minKafkaVersion) {
		return nil, fmt.Errorf("kafka.version: %s is older than 2.1.0", c.Version)
	}
	cfg.Version = v
	if c.ClientID != "" {
		cfg.ClientID = c.ClientID
	}
	switch c.Assignor {
	case "", "sticky":
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategySticky()}
	case "cooperative-sticky":
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyCooperativeSticky()}
	case "range":
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	case "roundrobin":
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRoundRobin()}
	default:
		return nil, fmt.Errorf("kafka.assignor: unknown %q", c.Assignor)
	}
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	// The engine applies in bursts (a policy tick, a checkpoint); a claim
	// waiting on its bounded queue for that long must not make sarama drop
	// the partition from its fetch set (which it does after
	// MaxProcessingTime per buffered message).
	cfg.Consumer.MaxProcessingTime = time.Second
	cfg.ChannelBufferSize = 1024
	cfg.Consumer.Fetch.Default = 4 << 20
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Consumer.Return.Errors = true
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	if c.TLS.Enabled {
		tc, err := tlsConfig(c.TLS)
		if err != nil {
			return nil, err
		}
		cfg.Net.TLS.Enable, cfg.Net.TLS.Config = true, tc
	}
	if c.SASL.Enabled {
		cfg.Net.SASL.Enable = true
		cfg.Net.SASL.Handshake = true
		cfg.Net.SASL.User, cfg.Net.SASL.Password = c.SASL.User, c.SASL.Password
		switch c.SASL.Mechanism {
		case "SCRAM-SHA-256":
			cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
			cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: scram.SHA256} }
		case "SCRAM-SHA-512":
			cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
			cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: scram.SHA512} }
		case "PLAIN":
			cfg.Net.SASL.Mechanism = sarama.SASLTypePlaintext
		default:
			return nil, fmt.Errorf("kafka.sasl.mechanism: unknown %q", c.SASL.Mechanism)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	return cfg, nil
}

func tlsConfig(t TLS) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // operator's explicit choice
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kafka.tls.ca_file: no certificates in %s", t.CAFile)
		}
		tc.RootCAs = pool
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("kafka.tls.cert_file: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// scramClient adapts xdg-go/scram to sarama.SCRAMClient.
type scramClient struct {
	hash scram.HashGeneratorFcn
	conv *scram.ClientConversation
}

func (s *scramClient) Begin(user, password, authzID string) error {
	c, err := s.hash.NewClient(user, password, authzID)
	if err != nil {
		return fmt.Errorf("scram: %w", err)
	}
	s.conv = c.NewConversation()
	return nil
}

func (s *scramClient) Step(challenge string) (string, error) {
	resp, err := s.conv.Step(challenge)
	if err != nil {
		return "", fmt.Errorf("scram: %w", err)
	}
	return resp, nil
}

func (s *scramClient) Done() bool { return s.conv.Done() }

// Dead-letter headers: where a rejected message came from and why.
const (
	HeaderTopic     = "rmsidecar-original-topic"
	HeaderPartition = "rmsidecar-original-partition"
	HeaderOffset    = "rmsidecar-original-offset"
	HeaderError     = "rmsidecar-error"
)

// RejectReason classifies why a message was not applied, for the
// rmsidecar_events_rejected_total{reason} label: a small fixed set.
func RejectReason(err error) string {
	var fe *events.FieldError
	if !errors.As(err, &fe) {
		return "invalid"
	}
	switch fe.Field {
	case "":
		return "malformed"
	case "type":
		return "unknown_type"
	case "v":
		return "version"
	}
	return "invalid_field"
}

// Message is one consumed record: a decoded event, or a rejection.
type Message struct {
	Topic     string
	Partition int32
	Offset    int64
	// HighWater is the partition's high-water mark when the message was
	// fetched: HighWater-Offset-1 is the lag behind it.
	HighWater int64
	Key       []byte
	// Event is the decoded event; nil when the message was rejected.
	Event *events.Event
	// Err is why the message was rejected (it is on the dead-letter topic).
	Err error
	// Received is when the consumer got the message (hint latency starts here).
	Received time.Time

	// buf is the recycled buffer a GroupConsumer batch lives in (see Release).
	buf *batchBuf
}

// batchBuf holds one claim batch: the messages and the events they point
// to, in one reusable allocation of MaxBatch each.
type batchBuf struct {
	msgs []Message
	evs  []events.Event
	pool *sync.Pool
}

// Release gives a batch a BatchFeed got from a GroupConsumer back to it for
// reuse, once nothing refers to the messages or their events any more (the
// next batch overwrites them). Releasing is optional (an unreleased batch is
// garbage collected); a slice that is not a whole batch of a GroupConsumer
// is left alone.
func Release(ms []Message) {
	if len(ms) == 0 || ms[0].buf == nil {
		return
	}
	b := ms[0].buf
	if &b.msgs[0] != &ms[0] || len(ms) > cap(b.msgs) {
		return
	}
	// Drop the keys (they point into sarama's fetch buffers) and errors; the
	// events are overwritten whole by the next decode.
	clear(b.msgs[:len(ms)])
	b.pool.Put(b)
}

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return tp.Topic + "/" + strconv.Itoa(int(tp.Partition)) }

// Feed is what a GroupConsumer feeds: the live loop in front of the engine.
type Feed interface {
	// Enqueue hands one message over in partition order. It blocks while the
	// feed's bounded queue is full (backpressure on the partition).
	Enqueue(ctx context.Context, m Message) error
	// Sync returns, for every partition the feed has applied messages of,
	// the next offset to consume that its last checkpoint covers: offsets
	// committed from it never run ahead of the saved state. With final (a
	// rebalance or shutdown) it first applies everything enqueued so far and
	// checkpoints; otherwise the feed may answer from an earlier checkpoint
	// to bound what checkpointing costs.
	Sync(ctx context.Context, final bool) (map[TopicPartition]int64, error)
	// Assigned reports the partitions of a new group generation.
	Assigned(claims map[string][]int32)
	// Claimed reports that a partition claim starts at offset initial
	// (negative when unknown: sarama.OffsetOldest or OffsetNewest) and that
	// the partition ends at highWater (0 when unknown).
	Claimed(tp TopicPartition, initial, highWater int64)
	// Released reports that this consumer no longer owns a partition.
	Released(tp TopicPartition)
}

// BatchFeed is a Feed that also takes several messages of one partition at
// once, in partition order. A GroupConsumer hands a feed that implements it
// every message already waiting in a claim's channel as one batch (up to
// MaxBatch), so the feed's per-hand-over costs (a channel operation, a lock,
// metric updates) are paid once per batch instead of once per message. The
// feed owns the slice and the events it points to until it passes the slice
// to Release, which lets the consumer reuse them for a later batch.
type BatchFeed interface {
	Feed
	EnqueueBatch(ctx context.Context, ms []Message) error
}

// MaxBatch is the most messages a GroupConsumer hands a BatchFeed at once.
const MaxBatch = 256

// DeadLetters receives rejected messages. A GroupConsumer does not mark a
// rejected message consumed until Send returns nil.
type DeadLetters interface {
	Send(ctx context.Context, m *sarama.ConsumerMessage, reason error) error
}

// DeadLetterProducer writes rejected messages, unchanged, to a topic, with
// the origin and the error in headers.
type DeadLetterProducer struct {
	topic string
	prod  sarama.SyncProducer
	deadLetterState
}

// NewDeadLetterProducer returns a producer writing to topic.
func NewDeadLetterProducer(prod sarama.SyncProducer, topic string) *DeadLetterProducer {
	return &DeadLetterProducer{topic: topic, prod: prod}
}

// Send writes m's key and value to the dead-letter topic.
func (d *DeadLetterProducer) Send(_ context.Context, m *sarama.ConsumerMessage, reason error) error {
	if d.already(m) {
		return nil // dead-lettered before a restart (see Recall)
	}
	msg := &sarama.ProducerMessage{
		Topic: d.topic,
		Value: sarama.ByteEncoder(m.Value),
		Headers: []sarama.RecordHeader{
			{Key: []byte(HeaderTopic), Value: []byte(m.Topic)},
			{Key: []byte(HeaderPartition), Value: []byte(strconv.Itoa(int(m.Partition)))},
			{Key: []byte(HeaderOffset), Value: []byte(strconv.FormatInt(m.Offset, 10))},
			{Key: []byte(HeaderError), Value: []byte(reason.Error())},
		},
	}
	if m.Key != nil {
		msg.Key = sarama.ByteEncoder(m.Key)
	}
	if _, _, err := d.prod.SendMessage(msg); err != nil {
		return fmt.Errorf("dead-letter %s/%d@%d to %s: %w", m.Topic, m.Partition, m.Offset, d.topic, err)
	}
	return nil
}

// GroupConsumer consumes topics in a consumer group and feeds decoded events
// to a Feed, at least once: an offset is committed only after Feed.Sync has
// confirmed everything before it applied and checkpointed. It commits
// periodically, when a partition is released in a rebalance, and at shutdown.
type GroupConsumer struct {
	group          sarama.ConsumerGroup
	offsets        OffsetReader
	client         sarama.Client // owned, closed by Close (nil when injected)
	topics         []string
	feed           Feed
	dead           DeadLetters
	commitInterval time.Duration
	onError        func(error)
	bufs           sync.Pool // of *batchBuf, for BatchFeed hand-overs
}

// GroupOptions configure a GroupConsumer.
type GroupOptions struct {
	Topics         []string
	Feed           Feed
	DeadLetters    DeadLetters
	CommitInterval time.Duration
	// OnError sees errors that do not stop consumption (nil: ignored).
	OnError func(error)
	// Offsets, when set, tells a new claim where its partition ends, so
	// readiness knows when a claim has caught up (a sarama.Client).
	Offsets OffsetReader
}

// OffsetReader looks up partition offsets (sarama.Client implements it).
type OffsetReader interface {
	GetOffset(topic string, partition int32, time int64) (int64, error)
}

// JoinGroup opens a client and a consumer group on it for c, and wraps them;
// Close closes both.
func JoinGroup(c Client, group string, o GroupOptions) (*GroupConsumer, error) {
	cfg, err := SaramaConfig(c)
	if err != nil {
		return nil, err
	}
	client, err := sarama.NewClient(c.Brokers, cfg)
	if err != nil {
		return nil, fmt.Errorf("kafka client %v: %w", c.Brokers, err)
	}
	g, err := sarama.NewConsumerGroupFromClient(group, client)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("kafka consumer group %s: %w", group, err)
	}
	o.Offsets = client
	gc := NewGroupConsumer(g, o)
	gc.client = client
	return gc, nil
}

// NewGroupConsumer wraps a sarama consumer group.
func NewGroupConsumer(group sarama.ConsumerGroup, o GroupOptions) *GroupConsumer {
	if o.CommitInterval <= 0 {
		o.CommitInterval = time.Second
	}
	if o.OnError == nil {
		o.OnError = func(error) {}
	}
	g := &GroupConsumer{group: group, topics: o.Topics, feed: o.Feed, dead: o.DeadLetters,
		commitInterval: o.CommitInterval, onError: o.OnError, offsets: o.Offsets}
	g.bufs.New = func() any {
		return &batchBuf{msgs: make([]Message, MaxBatch), evs: make([]events.Event, MaxBatch), pool: &g.bufs}
	}
	return g
}

// Run consumes until ctx is done. Consume returns at every rebalance, so it
// runs in a loop (the outer Consume loop sarama requires). Errors of a
// generation are reported and the loop goes on after a short pause; Run
// returns only when ctx is done or the group is closed.
func (g *GroupConsumer) Run(ctx context.Context) error {
	go func() {
		for err := range g.group.Errors() {
			g.onError(fmt.Errorf("kafka consumer: %w", err))
		}
	}()
	h := &groupHandler{g: g}
	for {
		err := g.group.Consume(ctx, g.topics, h)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, sarama.ErrClosedConsumerGroup) {
			return nil
		}
		if err != nil {
			g.onError(fmt.Errorf("kafka consume: %w", err))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}

// Close leaves the group (and closes the client JoinGroup opened).
func (g *GroupConsumer) Close() error {
	err := g.group.Close()
	if g.client != nil {
		err = errors.Join(err, g.client.Close())
	}
	return err
}

type groupHandler struct {
	g      *GroupConsumer
	stop   chan struct{}
	done   chan struct{}
	claims map[string][]int32
}

func (h *groupHandler) Setup(s sarama.ConsumerGroupSession) error {
	h.claims = s.Claims()
	h.g.feed.Assigned(h.claims)
	h.stop, h.done = make(chan struct{}), make(chan struct{})
	go h.commitLoop(s, h.stop, h.done)
	return nil
}

// Cleanup runs after every ConsumeClaim of the generation returned: commit
// what was applied, so the next owner starts after it.
func (h *groupHandler) Cleanup(s sarama.ConsumerGroupSession) error {
	close(h.stop)
	<-h.done
	return h.commit(context.Background(), s, true)
}

func (h *groupHandler) commitLoop(s sarama.ConsumerGroupSession, stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(h.g.commitInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := h.commit(s.Context(), s, false); err != nil && s.Context().Err() == nil {
				h.g.onError(err)
			}
		}
	}
}

// commit marks and commits the applied positions of the partitions this
// session owns.
func (h *groupHandler) commit(ctx context.Context, s sarama.ConsumerGroupSession, final bool) error {
	pos, err := h.g.feed.Sync(ctx, final)
	if err != nil {
		return fmt.Errorf("kafka commit: %w", err)
	}
	marked := false
	for topic, parts := range h.claims {
		for _, p := range parts {
			if off, ok := pos[TopicPartition{topic, p}]; ok {
				s.MarkOffset(topic, p, off, "")
				marked = true
			}
		}
	}
	if marked {
		s.Commit()
	}
	return nil
}

func (h *groupHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	ctx := s.Context()
	tp := TopicPartition{c.Topic(), c.Partition()}
	initial, hw := c.InitialOffset(), c.HighWaterMarkOffset()
	if h.g.offsets != nil {
		// The claim's high-water mark is only known after a fetch; ask the
		// broker, so an empty or fully consumed partition counts as caught up.
		if newest, err := h.g.offsets.GetOffset(tp.Topic, tp.Partition, sarama.OffsetNewest); err == nil {
			hw = newest
		}
		if initial == sarama.OffsetOldest {
			if oldest, err := h.g.offsets.GetOffset(tp.Topic, tp.Partition, sarama.OffsetOldest); err == nil {
				initial = oldest
			}
		}
	}
	h.g.feed.Claimed(tp, initial, hw)
	defer h.g.feed.Released(tp)
	bf, batching := h.g.feed.(BatchFeed)
	var waiting []*sarama.ConsumerMessage // reused: the batch being drained
	dec := new(events.MessageDecoder)
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-c.Messages():
			if !ok {
				return nil
			}
			if !batching {
				var ev events.Event
				m, ok := h.decode(ctx, c, dec, msg, &ev, time.Now())
				if !ok {
					return nil
				}
				if err := h.g.feed.Enqueue(ctx, m); err != nil {
					return nil //nolint:nilerr // the feed stops only when we are shutting down
				}
				continue
			}
			// Take what else is already waiting, without waiting for more:
			// batching adds no delay.
			waiting = append(waiting[:0], msg)
			open := true
		drain:
			for len(waiting) < MaxBatch {
				select {
				case m, ok := <-c.Messages():
					if !ok {
						open = false
						break drain
					}
					waiting = append(waiting, m)
				default:
					break drain
				}
			}
			now := time.Now()
			// A recycled buffer (the feed Releases it after applying), so
			// the per-message structs and events are not garbage.
			buf := h.g.bufs.Get().(*batchBuf)
			batch := buf.msgs[:len(waiting)]
			for i, msg := range waiting {
				m, ok := h.decode(ctx, c, dec, msg, &buf.evs[i], now)
				if !ok {
					return nil
				}
				m.buf = buf
				batch[i] = m
				waiting[i] = nil
			}
			if err := bf.EnqueueBatch(ctx, batch); err != nil {
				return nil //nolint:nilerr // the feed stops only when we are shutting down
			}
			if !open {
				return nil
			}
		}
	}
}

// decode turns one record into a Message, decoding its event into ev; a
// rejected record is on the dead-letter topic before decode returns. ok is
// false when ctx ended first.
func (h *groupHandler) decode(ctx context.Context, c sarama.ConsumerGroupClaim, dec *events.MessageDecoder, msg *sarama.ConsumerMessage, ev *events.Event, received time.Time) (Message, bool) {
	m := Message{Topic: msg.Topic, Partition: msg.Partition, Offset: msg.Offset,
		HighWater: c.HighWaterMarkOffset(), Key: msg.Key, Received: received}
	err := dec.DecodeInto(msg.Value, ev)
	if err == nil {
		m.Event = ev
		return m, true
	}
	m.Err = err
	// Retry the dead-letter write until it lands or we stop: a message is
	// never marked consumed before it is somewhere.
	for {
		derr := h.g.dead.Send(ctx, msg, err)
		if derr == nil {
			return m, true
		}
		h.g.onError(derr)
		select {
		case <-ctx.Done():
			return m, false
		case <-time.After(time.Second):
		}
	}
}
