package actuate

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/IBM/sarama"

	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Kafka writes hints v1 to a topic, keyed by app, else queue, else node
// (policy.Hint.Key), so a consumer sees an app's hints in order. It opens its
// producer on Connect (the sidecar retries it at start while the brokers are
// unreachable), else at its first delivery.
type Kafka struct {
	topic  string
	client kafka.Client
	mu     sync.Mutex
	prod   sarama.SyncProducer
}

// NewKafkaProducer opens the idempotent producer the Kafka actuator needs:
// retries inside the client cannot duplicate or reorder a hint.
func NewKafkaProducer(c kafka.Client) (sarama.SyncProducer, error) {
	cfg, err := kafka.SaramaConfig(c)
	if err != nil {
		return nil, err
	}
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Max = 10
	cfg.Net.MaxOpenRequests = 1
	cfg.Producer.Return.Successes = true
	p, err := sarama.NewSyncProducer(c.Brokers, cfg)
	if err != nil {
		return nil, fmt.Errorf("kafka hints producer: %w", err)
	}
	return p, nil
}

// NewKafka returns the actuator writing to topic through an idempotent
// producer on c (NewKafkaProducer), opened by Connect or the first delivery.
func NewKafka(c kafka.Client, topic string) *Kafka { return &Kafka{topic: topic, client: c} }

// Connect opens the producer unless it is open.
func (k *Kafka) Connect() error {
	_, err := k.producer()
	return err
}

func (k *Kafka) producer() (sarama.SyncProducer, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.prod == nil {
		p, err := NewKafkaProducer(k.client)
		if err != nil {
			return nil, err
		}
		k.prod = p
	}
	return k.prod, nil
}

// Close closes the producer if it was opened.
func (k *Kafka) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.prod == nil {
		return nil
	}
	err := k.prod.Close()
	k.prod = nil
	return err
}

// Name implements Actuator.
func (*Kafka) Name() string { return "kafka" }

// Deliver implements Actuator.
func (k *Kafka) Deliver(_ context.Context, h policy.Hint) error {
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode hint %s: %w", h.ID, err)
	}
	prod, err := k.producer()
	if err != nil {
		return fmt.Errorf("produce hint %s to %s: %w", h.ID, k.topic, err)
	}
	_, _, err = prod.SendMessage(&sarama.ProducerMessage{Topic: k.topic, Key: sarama.StringEncoder(h.Key()), Value: sarama.ByteEncoder(b)})
	if err != nil {
		return fmt.Errorf("produce hint %s to %s: %w", h.ID, k.topic, err)
	}
	return nil
}
