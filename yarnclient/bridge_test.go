package yarnclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/events"
)

// recorder is a Publisher that keeps what it got and can be told to fail.
type recorder struct {
	mu     sync.Mutex
	keys   []string
	values [][]byte
	failAt int // fail the n-th Publish (1-based) and every later one; 0 never
	calls  int
}

func (r *recorder) Publish(_ context.Context, key string, value []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.failAt > 0 && r.calls >= r.failAt {
		return errors.New("broker unavailable")
	}
	r.keys = append(r.keys, key)
	r.values = append(r.values, append([]byte(nil), value...))
	return nil
}

// decoded decodes everything published from index from on, checking that
// each value is a valid events v1 object keyed as the contract says.
func (r *recorder) decoded(t *testing.T, from int) []events.Event {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []events.Event
	for i := from; i < len(r.values); i++ {
		e, err := events.Decode(r.values[i])
		if err != nil {
			t.Fatalf("published value %d does not decode: %v\n%s", i, err, r.values[i])
		}
		if r.keys[i] != e.Key() {
			t.Errorf("event %s keyed %q, want %q", e.ID, r.keys[i], e.Key())
		}
		out = append(out, e)
	}
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.values)
}

var (
	shortener  = strings.NewReplacer("1763719000000_0001_", "", "_1763719000000_0001", "", ".example.com:45454", "")
	shortener2 = strings.NewReplacer("container_e01_01_", "c")
)

func summarize(e events.Event) string {
	var s string
	switch e.Type {
	case events.NodeRegistered:
		s = fmt.Sprintf("%s %s rack=%s vcores=%d mem=%d labels=%v", e.Type, e.Node, e.Rack, e.VCores, e.MemoryMB, e.Labels)
	case events.NodeHeartbeat:
		s = fmt.Sprintf("%s %s used=%d/%d load1=%.2f cpu=%.3f containers=%d", e.Type, e.Node, e.UsedVCores, e.UsedMemoryMB, e.Load1, e.CPUUtil, *e.RunningContainers)
	case events.NodeLost:
		s = fmt.Sprintf("%s %s reason=%s", e.Type, e.Node, e.Reason)
	case events.AppSubmitted:
		s = fmt.Sprintf("%s %s name=%s queue=%s user=%s type=%s maps=%d reduces=%d inputs=%d prio=%d", e.Type, e.App, e.Name, e.Queue, e.User, e.JobType, e.Maps, e.Reduces, len(e.InputPaths), *e.Priority)
	case events.AppFinished:
		s = fmt.Sprintf("%s %s %s", e.Type, e.App, e.State)
	case events.TaskPending:
		s = fmt.Sprintf("%s %s %s", e.Type, e.Task, e.Kind)
		if e.Partition != nil {
			s += fmt.Sprintf(" partition=%d", *e.Partition)
		}
	case events.ContainerAllocated:
		s = fmt.Sprintf("%s %s %s %s spec=%v mem=%d", e.Type, e.Attempt, e.Container, e.Node, e.Speculative, e.MemoryMB)
	case events.TaskProgress:
		s = fmt.Sprintf("%s %s p=%.3f %s", e.Type, e.Attempt, e.Progress, e.Phase)
		if e.MapsTotal > 0 {
			s += fmt.Sprintf(" fetched=%d/%d", e.MapsFetched, e.MapsTotal)
		}
	case events.TaskFinished:
		s = fmt.Sprintf("%s %s %s", e.Type, e.Attempt, e.State)
		if e.PhaseMS != nil {
			s += fmt.Sprintf(" ms=%+v", *e.PhaseMS)
		}
	default:
		s = string(e.Type)
	}
	return shortener2.Replace(shortener.Replace(s))
}

func checkEvents(t *testing.T, got []events.Event, want []string) {
	t.Helper()
	var sums []string
	for _, e := range got {
		sums = append(sums, summarize(e))
	}
	if strings.Join(sums, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(sums, "\n  "), strings.Join(want, "\n  "))
	}
}

// bridgeRM serves the first poll of app1's word count job.
func bridgeRM(t *testing.T) *fakeRM {
	rm := newFakeRM(t).
		onFixture("GET", "/ws/v1/cluster/nodes", "rm/nodes.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts", "rm/appattempts.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts/"+att1+"/containers", "bridge/containers1.json").
		onFixture("GET", mrURL+"/jobs", "mr/jobs.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/conf", "mr/conf.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/tasks", "mr/tasks.json").
		onFixture("GET", attemptsPath("m", 0), "mr/attempts_m0.json").
		onFixture("GET", attemptsPath("m", 1), "mr/attempts_m1.json").
		onFixture("GET", attemptsPath("m", 2), "bridge/attempts1_m2.json").
		onFixture("GET", attemptsPath("r", 0), "mr/attempts_r0.json")
	appsRunning, appsDone := fixture(t, "bridge/apps_running.json"), fixture(t, "rm/apps_empty.json")
	rm.onFunc("GET", "/ws/v1/cluster/apps", func(r *http.Request) reply {
		if strings.Contains(r.URL.Query().Get("states"), AppRunning) {
			return jsonReply(200, appsRunning)
		}
		return jsonReply(200, appsDone)
	})
	return rm
}

func attemptsPath(kind string, n int) string {
	return fmt.Sprintf("%s/jobs/%s/tasks/task_1763719000000_0001_%s_%06d/attempts", mrURL, job1, kind, n)
}

func newTestBridge(t *testing.T, rm *fakeRM, pub Publisher, now *time.Time) *Bridge {
	t.Helper()
	c, _ := testClient(t, nil, rm.URL())
	b, err := NewBridge(BridgeConfig{Source: c, Publisher: pub, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBridgeSuccessivePolls(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{}
	now := time.UnixMilli(1763719120000)
	b := newTestBridge(t, rm, pub, &now)
	ctx := context.Background()

	// Poll 1: everything is new.
	n, err := b.Poll(ctx)
	if err != nil {
		t.Fatalf("poll 1: %v", err)
	}
	got := pub.decoded(t, 0)
	if n != len(got) {
		t.Errorf("Poll returned %d, published %d", n, len(got))
	}
	checkEvents(t, got, []string{
		"node.registered dn1 rack=/rack1 vcores=8 mem=8192 labels=[slow]",
		"node.heartbeat dn1 used=2/2048 load1=0.25 cpu=0.031 containers=2",
		"node.registered dn2 rack=/rack1 vcores=8 mem=8192 labels=[]",
		"node.heartbeat dn2 used=2/2048 load1=0.50 cpu=0.062 containers=2",
		"node.registered dn3 rack=/rack2 vcores=8 mem=8192 labels=[]",
		"node.heartbeat dn3 used=0/0 load1=0.75 cpu=0.094 containers=0",
		"app.submitted application name=word count queue=default user=alice type=mapreduce maps=3 reduces=2 inputs=2 prio=0",
		"task.pending task_m_000000 map",
		"container.allocated attempt_m_000000_0 c000003 dn2 spec=false mem=1024",
		"task.finished attempt_m_000000_0 SUCCEEDED ms={Map:18000 Sort:0 Shuffle:0 Merge:0 Reduce:0}",
		"task.pending task_m_000001 map",
		"container.allocated attempt_m_000001_0 c000002 dn1 spec=false mem=1024",
		"task.progress attempt_m_000001_0 p=0.667 sort",
		"task.pending task_m_000002 map",
		"container.allocated attempt_m_000002_0 c000005 dn1 spec=false mem=1024",
		"task.progress attempt_m_000002_0 p=0.400 map",
		"task.pending task_r_000000 reduce partition=0",
		"container.allocated attempt_r_000000_0 c000004 dn2 spec=false mem=1024",
		"task.progress attempt_r_000000_0 p=0.083 shuffle fetched=1/3",
		"task.pending task_r_000001 reduce partition=1",
	})
	if rm.count("GET", attemptsPath("r", 1)) != 0 {
		t.Error("attempts of a SCHEDULED task were fetched")
	}
	ids := map[string]bool{}
	for _, e := range got {
		if ids[e.ID] || e.TS != 1763719120000 {
			t.Errorf("event %s: duplicate id or ts %d", e.ID, e.TS)
		}
		ids[e.ID] = true
	}

	// Poll 2 without any change: nothing to say.
	now = now.Add(10 * time.Second)
	if n, err := b.Poll(ctx); err != nil || n != 0 {
		t.Fatalf("unchanged poll: n=%d err=%v events=%v", n, err, pub.decoded(t, len(got)))
	}
	if q := lastQuery(rm, "/ws/v1/cluster/apps"); q.Get("finishedTimeBegin") != "1763719060000" || q.Get("states") != "FINISHED,FAILED,KILLED" {
		t.Errorf("finished-apps query = %v", q)
	}

	// Poll 3: a node is lost, another busier, tasks moved on.
	rm.onFixture("GET", "/ws/v1/cluster/nodes", "bridge/nodes2.json").
		onFixture("GET", "/ws/v1/cluster/apps/"+app1+"/appattempts/"+att1+"/containers", "bridge/containers2.json").
		onFixture("GET", mrURL+"/jobs/"+job1+"/tasks", "bridge/tasks2.json").
		onFixture("GET", attemptsPath("m", 1), "bridge/attempts2_m1.json").
		onFixture("GET", attemptsPath("m", 2), "bridge/attempts2_m2.json").
		onFixture("GET", attemptsPath("r", 0), "bridge/attempts2_r0.json").
		onFixture("GET", attemptsPath("r", 1), "bridge/attempts2_r1.json")
	now = now.Add(10 * time.Second)
	before := pub.count()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatalf("poll 3: %v", err)
	}
	checkEvents(t, pub.decoded(t, before), []string{
		"node.heartbeat dn1 used=3/3072 load1=0.25 cpu=0.031 containers=3",
		"node.lost dn3 reason=LOST: Node lost: no heartbeat for 600000 ms",
		"task.finished attempt_m_000001_0 SUCCEEDED ms={Map:63000 Sort:0 Shuffle:0 Merge:0 Reduce:0}",
		"task.progress attempt_m_000002_0 p=0.700 map",
		"container.allocated attempt_m_000002_1 c000006 dn2 spec=true mem=1024",
		"task.progress attempt_m_000002_1 p=0.100 map",
		"task.progress attempt_r_000000_0 p=0.600 merge",
		"container.allocated attempt_r_000001_0 c000007 dn1 spec=false mem=2048",
		"task.progress attempt_r_000001_0 p=0.050 shuffle fetched=2/3",
	})
	if n := rm.count("GET", attemptsPath("m", 0)); n != 1 {
		t.Errorf("attempts of a task finished at the previous poll fetched %d times, want 1", n)
	}
	if n := rm.count("GET", mrURL+"/jobs/"+job1+"/conf"); n != 1 {
		t.Errorf("job conf fetched %d times, want once", n)
	}

	// Poll 4: the app finished; it is listed only by the finished query.
	appsDone := fixture(t, "bridge/apps3_finished.json")
	rm.onFunc("GET", "/ws/v1/cluster/apps", func(r *http.Request) reply {
		if strings.Contains(r.URL.Query().Get("states"), AppRunning) {
			return jsonReply(200, fixture(t, "rm/apps_empty.json"))
		}
		return jsonReply(200, appsDone)
	})
	now = now.Add(10 * time.Second)
	before = pub.count()
	tasksCalls := rm.count("GET", mrURL+"/jobs/"+job1+"/tasks")
	if _, err := b.Poll(ctx); err != nil {
		t.Fatalf("poll 4: %v", err)
	}
	checkEvents(t, pub.decoded(t, before), []string{"app.finished application SUCCEEDED"})
	if rm.count("GET", mrURL+"/jobs/"+job1+"/tasks") != tasksCalls {
		t.Error("the AM of a finished app was polled")
	}
	// Poll 5: still finished, nothing new.
	now = now.Add(10 * time.Second)
	if n, err := b.Poll(ctx); err != nil || n != 0 {
		t.Fatalf("poll 5: n=%d err=%v", n, err)
	}
}

func lastQuery(rm *fakeRM, path string) url.Values {
	var q url.Values
	for _, r := range rm.requests() {
		if r.Path == path {
			q = r.Query
		}
	}
	return q
}

func TestBridgePublisherOutageLosesNothing(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{failAt: 4}
	now := time.UnixMilli(1763719120000)
	b := newTestBridge(t, rm, pub, &now)
	ctx := context.Background()
	n, err := b.Poll(ctx)
	if err == nil || !strings.Contains(err.Error(), "broker unavailable") || n != 3 {
		t.Fatalf("poll with failing publisher: n=%d err=%v", n, err)
	}
	if b.Pending() != 17 {
		t.Fatalf("pending = %d, want 17", b.Pending())
	}
	// The broker is back; the same cluster state: the backlog goes out in
	// order and nothing is duplicated.
	pub.mu.Lock()
	pub.failAt = 0
	pub.mu.Unlock()
	now = now.Add(10 * time.Second)
	if n, err := b.Poll(ctx); err != nil || n != 17 {
		t.Fatalf("recovery poll: n=%d err=%v", n, err)
	}
	all := pub.decoded(t, 0)
	if len(all) != 20 || b.Pending() != 0 {
		t.Fatalf("published %d, pending %d", len(all), b.Pending())
	}
	if all[3].Type != events.NodeHeartbeat || all[19].Type != events.TaskPending {
		t.Errorf("order broken: %s ... %s", all[3].Type, all[19].Type)
	}
}

func TestBridgeRMOutageKeepsSnapshot(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{}
	now := time.UnixMilli(1763719120000)
	b := newTestBridge(t, rm, pub, &now)
	ctx := context.Background()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	first := pub.count()
	rm.on("GET", "/ws/v1/cluster/nodes", reply{status: 500})
	if _, err := b.Poll(ctx); err == nil || StatusCode(err) != 500 {
		t.Fatalf("err = %v, want the RM's 500", err)
	}
	rm.onFixture("GET", "/ws/v1/cluster/nodes", "bridge/nodes2.json")
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	checkEvents(t, pub.decoded(t, first), []string{
		"node.heartbeat dn1 used=3/3072 load1=0.25 cpu=0.031 containers=3",
		"node.lost dn3 reason=LOST: Node lost: no heartbeat for 600000 ms",
	})
}

func TestBridgeAMNotUpDefersSubmitted(t *testing.T) {
	rm := bridgeRM(t)
	rm.on("GET", mrURL+"/jobs", reply{status: 200, body: []byte("<html>not yet</html>"), header: map[string]string{"Content-Type": "text/html"}})
	pub := &recorder{}
	now := time.UnixMilli(1763719120000)
	b := newTestBridge(t, rm, pub, &now)
	ctx := context.Background()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range pub.decoded(t, 0) {
		if e.App != "" {
			t.Fatalf("app event before the AM answered: %s", summarize(e))
		}
	}
	rm.onFixture("GET", mrURL+"/jobs", "mr/jobs.json")
	before := pub.count()
	if _, err := b.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	evs := pub.decoded(t, before)
	if len(evs) == 0 || evs[0].Type != events.AppSubmitted || evs[0].Maps != 3 || len(evs[0].InputPaths) != 2 {
		t.Fatalf("first app event = %+v", evs)
	}
}

func TestNewBridgeValidates(t *testing.T) {
	if _, err := NewBridge(BridgeConfig{}); err == nil {
		t.Fatal("want error")
	}
}

func TestBridgeRunStopsWithContext(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{}
	c, _ := testClient(t, nil, rm.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := 0
	b, err := NewBridge(BridgeConfig{Source: c, Publisher: pub, Now: func() time.Time {
		polls++
		if polls == 3 {
			cancel() // the third poll runs into a cancelled context
		}
		return time.UnixMilli(1763719120000 + int64(polls)*1000)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Run(ctx, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
	if pub.count() != 20 || polls != 3 {
		t.Errorf("published %d in %d polls, want 20 in 3 (later polls see no change)", pub.count(), polls)
	}
}

func TestBridgeBacklogBounded(t *testing.T) {
	rm := bridgeRM(t)
	pub := &recorder{failAt: 1}
	now := time.UnixMilli(1763719120000)
	c, _ := testClient(t, nil, rm.URL())
	var logs strings.Builder
	b, err := NewBridge(BridgeConfig{Source: c, Publisher: pub, MaxPending: 5, Now: func() time.Time { return now },
		Logger: zerolog.New(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Poll(context.Background()); err == nil {
		t.Fatal("want publish error")
	}
	if b.Pending() != 5 || !strings.Contains(logs.String(), "dropping oldest events") {
		t.Fatalf("pending=%d logs=%s", b.Pending(), logs.String())
	}
}

// splitSource answers every job with the splits it holds, or fails.
type splitSource struct {
	splits []events.Split
	stale  bool
	err    error
	calls  int
	paths  []string
}

func (s *splitSource) Splits(_ context.Context, paths []string, _, _ int64) ([]events.Split, bool, error) {
	s.calls++
	s.paths = paths
	return s.splits, s.stale, s.err
}

// TestBridgeSplitsOnMapsPending: with a SplitSource, map i's task.pending
// carries split i (the NameNode's hosts); resolved once per job; a failed
// lookup leaves task.pending without splits and is counted.
func TestBridgeSplitsOnMapsPending(t *testing.T) {
	splits := []events.Split{
		{Path: "/in/a", Length: 300, Hosts: []string{"dn1", "dn2"}},
		{Path: "/in/b", Length: 200, Hosts: []string{"dn3"}},
		{Path: "/in/a", Offset: 300, Length: 100, Hosts: []string{"dn2"}},
	}
	for _, tt := range []struct {
		name  string
		src   *splitSource
		want  bool
		stats SplitStats
	}{
		{"resolved", &splitSource{splits: splits}, true, SplitStats{OK: 1}},
		{"stale answer still used", &splitSource{splits: splits, stale: true}, true, SplitStats{Stale: 1}},
		{"NameNode down", &splitSource{err: errors.New("namenode unavailable")}, false, SplitStats{Failed: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rm := bridgeRM(t)
			pub := &recorder{}
			now := time.UnixMilli(1763719120000)
			c, _ := testClient(t, nil, rm.URL())
			b, err := NewBridge(BridgeConfig{Source: c, Publisher: pub, Now: func() time.Time { return now }, Splits: tt.src})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := b.Poll(context.Background()); err != nil {
					t.Fatal(err)
				}
				now = now.Add(5 * time.Second)
			}
			if tt.src.calls != 1 || len(tt.src.paths) != 2 {
				t.Errorf("split lookups %d for inputs %v, want 1 for the job's 2 input paths", tt.src.calls, tt.src.paths)
			}
			if got := b.SplitStats(); got != tt.stats {
				t.Errorf("split stats %+v, want %+v", got, tt.stats)
			}
			maps := 0
			for _, e := range pub.decoded(t, 0) {
				if e.Type != events.TaskPending || e.Kind != events.Map {
					continue
				}
				maps++
				i, _ := taskIndex(e.Task)
				switch {
				case !tt.want && len(e.Splits) != 0:
					t.Errorf("%s: splits %+v without a lookup", e.Task, e.Splits)
				case tt.want && (len(e.Splits) != 1 || e.Splits[0].Path != splits[i].Path || e.Splits[0].Offset != splits[i].Offset ||
					strings.Join(e.Splits[0].Hosts, ",") != strings.Join(splits[i].Hosts, ",")):
					t.Errorf("%s (map %d): splits %+v, want [%+v]", e.Task, i, e.Splits, splits[i])
				}
			}
			if maps != 3 {
				t.Errorf("%d map task.pending events, want 3", maps)
			}
		})
	}
}
