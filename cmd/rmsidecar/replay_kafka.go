package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/sidecar"
)

// replayKafkaOptions are the flags of `replay --kafka`.
type replayKafkaOptions struct {
	brokers   string
	topic     string
	nodeTopic string
	speed     float64
}

func addReplayKafkaFlags(f *pflag.FlagSet, o *replayKafkaOptions) {
	f.StringVar(&o.brokers, "kafka", "", "produce the log into Kafka at these brokers (comma list) instead of replaying it in-process")
	f.StringVar(&o.topic, "topic", "", "with --kafka: the topic to produce to (default: the config's kafka.events_topic)")
	f.StringVar(&o.nodeTopic, "node-topic", "", "with --kafka: send node.* events to this topic instead (e.g. the config's kafka.node_topic)")
	f.Float64Var(&o.speed, "speed", 0, "with --kafka: keep the log's timing divided by this factor (1 = real time); 0 = as fast as possible")
}

// runReplayKafka produces a recorded log into Kafka, keyed by app, else node.
func runReplayKafka(ctx context.Context, a *app, o replayOptions) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	log := a.logger(cfg)
	if o.kafka.speed < 0 {
		return badInput("--speed: must be >= 0, got %v", o.kafka.speed)
	}
	topic := o.kafka.topic
	if topic == "" {
		topic = cfg.Kafka.EventsTopic
	}
	var brokers []string
	for _, b := range strings.Split(o.kafka.brokers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	in := a.io.in
	if o.eventsFile != "-" {
		f, err := os.Open(o.eventsFile)
		if err != nil {
			return badInput("--events: %v", err)
		}
		defer f.Close()
		in = f
	}
	kc := sidecar.KafkaClient(cfg.Kafka)
	kc.Brokers, kc.ClientID = brokers, kc.ClientID+"-replay"
	prod, err := kafka.NewProducer(kc)
	if err != nil {
		return fmt.Errorf("--kafka: %w", err)
	}
	defer prod.Close()
	st, err := kafka.ProduceLog(ctx, prod, in, kafka.ProduceOptions{Topic: topic, NodeTopic: o.kafka.nodeTopic, Speed: o.kafka.speed})
	if err != nil {
		return fmt.Errorf("replay %s into %s: %w", o.eventsFile, topic, err)
	}
	if st.Invalid > 0 {
		log.Warn().Int("lines", st.Invalid).Msg("lines that are not valid events v1 were produced unchanged without a key; the sidecar sends them to its dead-letter topic")
	}
	fmt.Fprintf(a.io.err, "replay %s into %s at %s: %d messages (%d not valid events v1)\n",
		o.eventsFile, topic, strings.Join(brokers, ","), st.Produced, st.Invalid)
	return nil
}
