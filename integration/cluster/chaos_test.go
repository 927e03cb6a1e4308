//go:build cluster

package clustertest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/hdfslocality"
)

// chaosRecoveryBound is how soon after a part comes back the pipeline must
// flow again without help (issue: "recovers by itself within 10 s").
const chaosRecoveryBound = 10 * time.Second

// TestChaosRecoversWithinTenSeconds: `rmsidecar bridge` polls the real RM
// into the real broker and `rmsidecar run` (rm actuator on) consumes it,
// with a steady stream of heartbeats besides. The broker is
// restarted, then the ResourceManager, then the NameNode is stopped and
// started again. Neither process exits; after each part is back, both are
// ready and events reach the sidecar again within 10 s; while the NameNode
// is down events keep flowing, and the bridge's split resolver answers
// fresh again within 10 s of its return.
func TestChaosRecoversWithinTenSeconds(t *testing.T) {
	c := loadCluster(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	evTopic, nodeTopic, hintsTopic := uniq("it.chaos."), uniq("it.chaos.nodes."), uniq("it.chaos.hints.")
	httpAddr, bridgeHTTP := freePort(t), freePort(t)
	cfg := sidecarConfig(t, c, httpAddr, uniq("it-chaos-"), evTopic, nodeTopic, hintsTopic, "  stack: yarn", true)
	run := startRMSidecar(t, "run", "run", "--config", cfg)
	// A steady stream beside the bridge's (which publishes only changes):
	// a heartbeat every 100 ms from a producer that reconnects by itself.
	go produceHeartbeats(ctx, c.KafkaBootstrap, nodeTopic)
	bridge := startRMSidecar(t, "bridge", "bridge", "--rm", c.RMWeb, "--kafka", c.KafkaBootstrap,
		"--topic", evTopic, "--node-topic", nodeTopic, "--interval", "1s", "--log-format", "json",
		"--http", bridgeHTTP, "--hdfs-conf", c.ConfDir)
	ready := func(addr string) bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	consumed := func() float64 {
		v, _ := metricSum(ctx, httpAddr, "rmsidecar_events_consumed_total")
		return v
	}
	alive := func(phase string) {
		t.Helper()
		if run.exited() || bridge.exited() {
			t.Fatalf("%s: a process exited: run %v, bridge %v\nrun:\n%s\nbridge:\n%s", phase, run.exited(), bridge.exited(),
				tail(run.log(), 30), tail(bridge.log(), 30))
		}
	}
	// flowing waits until both processes are ready and the sidecar consumed
	// new events (more than at the call), and returns how long that took.
	flowing := func(phase string, bound time.Duration) time.Duration {
		t.Helper()
		start, before := time.Now(), consumed()
		for {
			alive(phase)
			if ready(httpAddr) && ready(bridgeHTTP) && consumed() > before {
				return time.Since(start)
			}
			if time.Since(start) > bound {
				t.Fatalf("%s: not flowing %v after the part came back (sidecar ready %v, bridge ready %v, consumed %v -> %v)\nrun:\n%s\nbridge:\n%s",
					phase, bound, ready(httpAddr), ready(bridgeHTTP), before, consumed(), tail(run.log(), 20), tail(bridge.log(), 20))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	flowing("start", 2*time.Minute)

	// The broker: down 3 s, then back on the same port and log dirs. The
	// sidecar's readiness is sampled meanwhile (it should drop).
	sampling, notReady := make(chan struct{}), make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-sampling:
				notReady <- n
				return
			case <-time.After(200 * time.Millisecond):
				if !ready(httpAddr) {
					n++
				}
			}
		}
	}()
	if err := c.RestartKafka(ctx, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	close(sampling)
	if n := <-notReady; n == 0 {
		t.Error("the sidecar stayed ready while the broker was down")
	} else {
		t.Logf("broker down: sidecar /readyz not 200 in %d samples of 200 ms", n)
	}
	kafkaBack := flowing("kafka restart", chaosRecoveryBound)

	// The ResourceManager: stopped and started again (same ports; the
	// NodeManagers register again before the control call returns).
	t0 := time.Now()
	if _, err := c.Control(ctx, "restart-resourcemanager"); err != nil {
		t.Fatal(err)
	}
	rmDown := time.Since(t0)
	rmBack := flowing("rm restart", chaosRecoveryBound)
	var rmUp float64
	eventually(t, chaosRecoveryBound, 200*time.Millisecond, "bridge rm_up after the RM restart", func() (bool, string) {
		rmUp, _ = metricSum(ctx, bridgeHTTP, "rmsidecar_bridge_rm_up")
		return rmUp == 1, fmt.Sprint(rmUp)
	})

	// The NameNode: events keep flowing while it is down (nothing on the
	// event path waits for it); the bridge's split resolver (its defaults)
	// answers fresh again once it is back.
	dir := "/user/rmsidecar/" + uniq("chaos-")
	writeHDFSFile(t, c, dir+"/a", 1<<20)
	r, err := hdfslocality.NewFromConfDir(c.ConfDir, hdfslocality.Options{User: "rmsidecar", TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := c.Control(ctx, "stop-namenode"); err != nil {
		t.Fatal(err)
	}
	started := false
	defer func() {
		if !started {
			_, _ = c.Control(context.Background(), "start-namenode")
		}
	}()
	nnDownFlow := flowing("namenode down", chaosRecoveryBound)
	if _, err := c.Control(ctx, "start-namenode"); err != nil {
		t.Fatal(err)
	}
	started = true
	nnBack := time.Now()
	var nnFresh time.Duration
	for {
		res, err := r.Resolve(ctx, []string{dir})
		if err == nil && res[0].Err == nil && !res[0].Stale && len(res[0].Files) == 1 {
			nnFresh = time.Since(nnBack)
			break
		}
		if time.Since(nnBack) > chaosRecoveryBound {
			t.Fatalf("split resolver not fresh %v after the NameNode came back: %v %+v", chaosRecoveryBound, err, res)
		}
		time.Sleep(200 * time.Millisecond)
	}
	nnFlow := flowing("namenode back", chaosRecoveryBound)
	alive("end")
	t.Logf("recovery after the part came back: kafka %v; rm %v (restart took %v); namenode: events flowed while down (%v), resolver fresh after %v, events %v",
		kafkaBack.Round(10*time.Millisecond), rmBack.Round(10*time.Millisecond), rmDown.Round(100*time.Millisecond),
		nnDownFlow.Round(10*time.Millisecond), nnFresh.Round(10*time.Millisecond), nnFlow.Round(10*time.Millisecond))
	if v, err := metricSum(ctx, httpAddr, "rmsidecar_events_rejected_total"); err == nil && v > 0 {
		t.Errorf("%v events rejected across the restarts", v)
	}
	for _, p := range []*proc{bridge, run} {
		if err := p.stop(30 * time.Second); err != nil {
			t.Errorf("stop: %v", err)
		}
	}
}

// produceHeartbeats registers a node, then sends it a heartbeat every
// 100 ms until ctx ends, opening a new producer whenever a send fails (the
// broker restarts under it).
func produceHeartbeats(ctx context.Context, bootstrap, topic string) {
	const node = "chaos-n1.example:8041"
	var prod sarama.SyncProducer
	defer func() {
		if prod != nil {
			prod.Close()
		}
	}()
	registered := false
	for i := 0; ctx.Err() == nil; i++ {
		time.Sleep(100 * time.Millisecond)
		if prod == nil {
			p, err := sarama.NewSyncProducer([]string{bootstrap}, kafkaConfig())
			if err != nil {
				continue
			}
			prod = p
		}
		ev := events.Event{V: 1, ID: fmt.Sprintf("chaos-%d", i), Type: events.NodeHeartbeat, TS: time.Now().UnixMilli(),
			Node: node, Load1: 0.5, CPUUtil: 0.1}
		if !registered {
			ev.Type, ev.Rack, ev.VCores, ev.MemoryMB = events.NodeRegistered, "/rack1", 8, 16384
		}
		v, err := events.Encode(&ev)
		if err != nil {
			panic(err) // the event is built here: a bug in this test
		}
		if _, _, err := prod.SendMessage(&sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(node), Value: sarama.ByteEncoder(v)}); err != nil {
			prod.Close()
			prod = nil
			continue
		}
		registered = true
	}
}
