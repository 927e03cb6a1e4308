package actuate

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/IBM/sarama"

	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Kafka writes hints v1 to a topic, keyed by app, else queue, else node
// (policy.Hint.Key), so a consumer sees an app's hints in order.
type Kafka struct {
	topic string
	prod  sarama.SyncProducer
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

// NewKafka returns the actuator writing to topic through prod.
func NewKafka(prod sarama.SyncProducer, topic string) *Kafka { return &Kafka{topic: topic, prod: prod} }

// Name implements Actuator.
func (*Kafka) Name() string { return "kafka" }

// Deliver implements Actuator.
func (k *Kafka) Deliver(_ context.Context, h policy.Hint) error {
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode hint %s: %w", h.ID, err)
	}
	_, _, err = k.prod.SendMessage(&sarama.ProducerMessage{Topic: k.topic, Key: sarama.StringEncoder(h.Key()), Value: sarama.ByteEncoder(b)})
	if err != nil {
		return fmt.Errorf("produce hint %s to %s: %w", h.ID, k.topic, err)
	}
	return nil
}
