// Package demo is the embedded demo of `rmsidecar run` with no
// kafka.brokers configured: an in-process Kafka broker (franz-go kfake) and
// the simulator as a live event source feeding it in accelerated time, so a
// sidecar attached to it shows events -> policies -> hints on a laptop. It is
// not production code: package sidecar does not import it (nor sim, nor
// kfake); the command wires the two together.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/events/kafka"
	"github.com/rmsidecar/rmsidecar/sim"
)

// recordedLog is the bundled event log the embedded demo falls back to: a
// small cluster running two MapReduce jobs, recorded in events v1.
//
//go:embed recorded.jsonl
var recordedLog []byte

// demoScenario is the simulated cluster that feeds the embedded demo.
//
//go:embed scenario.yaml
var demoScenario []byte

// demoWorldStack is the policy stack of the simulated world itself: it
// behaves like stock YARN; the sidecar's own stack only observes it.
const demoWorldStack = "yarn"

// Broker is the in-process Kafka broker of the demo mode, with the topics
// of the kafka.* settings it was started with.
type Broker struct {
	cluster   *kfake.Cluster
	brokers   []string
	simBroken bool
}

// Partitions is how many partitions the embedded events topic has.
const Partitions = 4

// Start starts the embedded broker with k's topics.
func Start(k config.Kafka) (*Broker, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.SeedTopics(Partitions, k.EventsTopic),
		kfake.SeedTopics(1, k.NodeTopic, k.HintsTopic, k.DeadLetterTopic),
	)
	if err != nil {
		return nil, fmt.Errorf("embedded kafka: %w", err)
	}
	return &Broker{cluster: c, brokers: c.ListenAddrs()}, nil
}

// Brokers are the addresses the embedded broker listens on.
func (e *Broker) Brokers() []string { return e.brokers }

// Close stops the broker; it forgets every record and offset.
func (e *Broker) Close() { e.cluster.Close() }

// Feed runs the simulator as a live event source: each round simulates the
// demo scenario (a new seed each round) and produces its events while they
// are emitted, paced at speed times the simulated clock, with fresh ids and
// later times than the round before. If the scenario cannot be simulated it
// plays the bundled recorded log instead.
func (e *Broker) Feed(ctx context.Context, kc kafka.Client, k config.Kafka, speed float64, log zerolog.Logger) {
	if speed <= 0 {
		speed = 10
	}
	prod, err := kafka.NewProducer(kc)
	if err != nil {
		log.Error().Err(err).Msg("demo source: no producer")
		return
	}
	defer prod.Close()
	var base int64 // where this round starts in event time (0: as emitted)
	for round := 0; ctx.Err() == nil; round++ {
		src, name, wait := e.source(ctx, round, log)
		var first, last int64
		rename := Round(round, 0)
		o := kafka.ProduceOptions{Topic: k.EventsTopic, NodeTopic: k.NodeTopic, Speed: speed, Rewrite: func(ev *events.Event) {
			if first == 0 {
				first = ev.TS
			}
			if base > 0 {
				ev.TS = ev.TS - first + base
			}
			last = max(last, ev.TS)
			if rename != nil {
				rename(ev)
			}
		}}
		st, err := kafka.ProduceLog(ctx, prod, src, o)
		if werr := wait(); werr != nil && ctx.Err() == nil {
			log.Warn().Err(werr).Str("source", name).Msg("demo source: simulation failed; playing the recorded log")
			e.simBroken = true
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				log.Error().Err(err).Msg("demo source stopped")
			}
			return
		}
		log.Debug().Int("round", round).Str("source", name).Int("events", st.Produced).Msg("demo source: round played")
		base = last + 1000
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(float64(time.Second) / speed)):
		}
	}
}

// source returns one round's events as JSONL: the simulator's live output
// through a pipe, or the recorded log.
func (e *Broker) source(ctx context.Context, round int, log zerolog.Logger) (io.Reader, string, func() error) {
	if !e.simBroken {
		sc, err := sim.ParseScenario("demo", demoScenario)
		if err == nil {
			sc.Seed = uint64(round + 1)
			pr, pw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				_, err := sim.Run(ctx, sc, demoWorldStack, sim.Options{Events: pw, Log: log.Level(zerolog.WarnLevel)})
				pw.CloseWithError(err)
				done <- err
			}()
			// Closing the reader unblocks a simulator still writing when
			// the producer stopped early.
			return pr, "simulator", func() error { _ = pr.Close(); return <-done }
		}
		log.Warn().Err(err).Msg("demo source: bad demo scenario; playing the recorded log")
		e.simBroken = true
	}
	return bytes.NewReader(recordedLog), "recorded log", func() error { return nil }
}

// Round rewrites an event of the recorded log for round r: ids and app,
// task, attempt and container names get a round suffix and times move on by
// r spans, so each round is a new set of jobs on the same nodes.
func Round(r int, spanMS int64) func(*events.Event) {
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
