package sidecar

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/events"
)

// recordedLog is the bundled event log the embedded demo plays: a small
// cluster running two MapReduce jobs, recorded in events v1.
//
//go:embed demo/recorded.jsonl
var recordedLog []byte

// embedded is the in-process broker of the demo mode.
type embedded struct {
	cluster *kfake.Cluster
	brokers []string
}

// DemoPartitions is how many partitions the embedded events topic has.
const DemoPartitions = 4

func startEmbedded(k config.Kafka, log zerolog.Logger) (*embedded, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.SeedTopics(DemoPartitions, k.EventsTopic),
		kfake.SeedTopics(1, k.NodeTopic, k.HintsTopic, k.DeadLetterTopic),
	)
	if err != nil {
		return nil, fmt.Errorf("embedded kafka: %w", err)
	}
	return &embedded{cluster: c, brokers: c.ListenAddrs()}, nil
}

func (e *embedded) close() { e.cluster.Close() }

// feed plays the recorded log into the broker in accelerated time, round
// after round, each round with fresh ids and later times so the demo cluster
// keeps running new jobs.
func (e *embedded) feed(ctx context.Context, kc events.KafkaClient, k config.Kafka, speed float64, log zerolog.Logger) {
	if speed <= 0 {
		speed = 10
	}
	prod, err := events.NewProducer(kc)
	if err != nil {
		log.Error().Err(err).Msg("demo source: no producer")
		return
	}
	defer prod.Close()
	span := logSpanMS(recordedLog)
	for round := 0; ctx.Err() == nil; round++ {
		st, err := events.ProduceLog(ctx, prod, bytes.NewReader(recordedLog), events.ProduceOptions{
			Topic: k.EventsTopic, NodeTopic: k.NodeTopic, Speed: speed, Rewrite: DemoRound(round, span)})
		if err != nil {
			if ctx.Err() == nil {
				log.Error().Err(err).Msg("demo source stopped")
			}
			return
		}
		log.Debug().Int("round", round).Int("events", st.Produced).Msg("demo source: round played")
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(float64(time.Second) / speed)):
		}
	}
}

// DemoRound rewrites an event of the recorded log for round r: ids and app,
// task, attempt and container names get a round suffix and times move on by
// r spans, so each round is a new set of jobs on the same nodes.
func DemoRound(r int, spanMS int64) func(*events.Event) {
	if r == 0 {
		return nil
	}
	suffix := "_r" + strconv.Itoa(r)
	return func(ev *events.Event) {
		ev.ID += suffix
		ev.TS += int64(r) * spanMS
		for _, p := range []*string{&ev.App, &ev.Task, &ev.Attempt, &ev.Container} {
			if *p != "" {
				*p += suffix
			}
		}
	}
}

// logSpanMS is the time the recorded log covers, plus a second.
func logSpanMS(log []byte) int64 {
	r := events.NewReader(bytes.NewReader(log))
	var first, last int64
	for n := 0; ; n++ {
		ev, err := r.Next()
		if err != nil {
			break
		}
		if n == 0 {
			first = ev.TS
		}
		last = max(last, ev.TS)
	}
	return last - first + 1000
}
