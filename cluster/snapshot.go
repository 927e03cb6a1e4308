package cluster

import (
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/rmsidecar/rmsidecar/events"
)

// Snapshot is a canonical, JSON-serializable copy of the state: every list is
// sorted by id, so two states built from the same events in any order give
// equal snapshots.
type Snapshot struct {
	Nodes []Node        `json:"nodes"`
	Apps  []AppSnapshot `json:"apps"`
}

// AppSnapshot is an app with its tasks.
type AppSnapshot struct {
	App
	Tasks []TaskSnapshot `json:"tasks"`
}

// TaskSnapshot is a task with its attempts.
type TaskSnapshot struct {
	Task
	Attempts []Attempt `json:"attempts"`
}

// Snapshot returns a canonical deep copy of the state.
func (s *State) Snapshot() Snapshot {
	var snap Snapshot
	for _, n := range s.nodes.list {
		c := *n
		c.Running = nil
		c.History = n.History.Clone()
		snap.Nodes = append(snap.Nodes, c)
	}
	slices.SortFunc(snap.Nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	for _, a := range s.appList {
		as := AppSnapshot{App: *a}
		as.App.Tasks, as.App.Count, as.App.taskSlots, as.App.seed = nil, nil, nil, maphash.Seed{}
		for _, t := range a.Tasks {
			ts := TaskSnapshot{Task: *t}
			ts.Task.Attempts, ts.Task.App, ts.Task.first = nil, nil, [1]*Attempt{}
			for _, at := range t.Attempts {
				c := *at
				c.Task, c.onNode = nil, nil
				ts.Attempts = append(ts.Attempts, c)
			}
			slices.SortFunc(ts.Attempts, func(a, b Attempt) int { return cmp.Compare(a.ID, b.ID) })
			as.Tasks = append(as.Tasks, ts)
		}
		slices.SortFunc(as.Tasks, func(a, b TaskSnapshot) int { return cmp.Compare(a.ID, b.ID) })
		snap.Apps = append(snap.Apps, as)
	}
	slices.SortFunc(snap.Apps, func(a, b AppSnapshot) int { return cmp.Compare(a.ID, b.ID) })
	return snap
}

// Summary counts what a state holds, for status lines and the replay report.
type Summary struct {
	Nodes         int `json:"nodes"`
	NodesRunning  int `json:"nodes_running"`
	NodesLost     int `json:"nodes_lost"`
	Racks         int `json:"racks"`
	Apps          int `json:"apps"`
	AppsRunning   int `json:"apps_running"`
	AppsFinished  int `json:"apps_finished"`
	PendingMaps   int `json:"pending_maps"`
	PendingReduce int `json:"pending_reduces"`
	RunningMaps   int `json:"running_maps"`
	RunningReduce int `json:"running_reduces"`
	Succeeded     int `json:"tasks_succeeded"`
	Containers    int `json:"running_containers"`
}

// Summarize counts nodes, apps and tasks.
func (s *State) Summarize() Summary {
	sum := Summary{Nodes: len(s.nodes.list), Racks: len(s.rackList), Apps: len(s.appList)}
	for _, n := range s.nodes.list {
		switch n.State {
		case NodeRunning:
			sum.NodesRunning++
		case NodeLost:
			sum.NodesLost++
		}
		sum.Containers += len(n.Running)
	}
	for _, a := range s.appList {
		m, r := a.Count[events.Map], a.Count[events.Reduce]
		sum.Succeeded += m.Succeeded + r.Succeeded
		if a.Finished() {
			sum.AppsFinished++
			continue
		}
		if a.State == AppRunning {
			sum.AppsRunning++
		}
		sum.PendingMaps += m.Pending
		sum.PendingReduce += r.Pending
		sum.RunningMaps += m.Running
		sum.RunningReduce += r.Running
	}
	return sum
}
