package tmar

import (
	"math"
	"sort"
)

// tieEpsilon treats finish times this close (seconds) as equal for the
// TMaR* power tie-break.
const tieEpsilon = 1e-9

// Machine is the scheduler's model of one node.
type Machine struct {
	Name string
	// CoreFree holds when each core becomes free (seconds, absolute).
	CoreFree []float64
	// PowerIdleW and PowerMaxW parameterise eq. 2.
	PowerIdleW, PowerMaxW float64
}

// earliest returns the index and time of the core that frees first.
func (m *Machine) earliest() (int, float64) {
	best, at := -1, math.Inf(1)
	for i, t := range m.CoreFree {
		if t < at {
			best, at = i, t
		}
	}
	return best, at
}

// busyAt counts cores busy at time t.
func (m *Machine) busyAt(t float64) int {
	n := 0
	for _, f := range m.CoreFree {
		if f > t {
			n++
		}
	}
	return n
}

// pas is eq. 2: power after the assignment at utilisation u.
func (m *Machine) pas(u float64) float64 {
	return m.PowerIdleW + (m.PowerMaxW-m.PowerIdleW)*u
}

// addedEnergy is what running a task of exec seconds starting at start adds
// to the cluster's consumption: the rise of eq. 2 from the node's current
// utilisation to one more busy core, over the task's duration. This is the
// CPC comparison of Algorithm 2 (lines 4–5) made concrete.
func (m *Machine) addedEnergy(start, exec float64) float64 {
	cores := float64(len(m.CoreFree))
	if cores == 0 {
		return math.Inf(1)
	}
	busy := float64(m.busyAt(start))
	before := m.pas(busy / cores)
	after := m.pas(math.Min(1, (busy+1)/cores))
	return (after - before) * exec
}

// Placement is where one task goes and when it finishes.
type Placement struct {
	Machine int
	Task    int // PlanMaps: index of the task placed
	Start   float64
	Finish  float64
}

// PowerTie is Algorithm 2's tie-break. With Power off the plan is
// Algorithm 1: the earliest finish wins, the first machine among equals.
// With Power on, of the candidates that finish within Within seconds of the
// earliest the one that adds the least cluster power wins (eq. 2). Within
// is ours: the paper ties only equal times, which real per-node times seldom
// are; the ResourceManager starts nothing more precisely than a heartbeat,
// so finishes one heartbeat apart are the same to it. The chosen finish is
// never later than the earliest plus Within.
//
// WithinMakespan (ours, the "same makespan" of Table 5 taken literally):
// a candidate also ties when it finishes no later than the plan's current
// makespan (the latest busy core), so the tail of a schedule may go to
// slower, lower-power cores without making the plan longer.
type PowerTie struct {
	Power          bool
	Within         float64
	WithinMakespan bool
}

// horizon is the latest core-available time of the machines: the plan's
// makespan so far.
func horizon(ms []Machine) float64 {
	var h float64
	for i := range ms {
		for _, f := range ms[i].CoreFree {
			h = math.Max(h, f)
		}
	}
	return h
}

// cand is one machine's offer for the next task.
type cand struct {
	machine, core, task int
	start, finish, exec float64
}

// choose returns the index in cs of the winner, -1 if cs is empty.
func (pt PowerTie) choose(ms []Machine, cs []cand, span float64) int {
	best := -1
	for k, c := range cs {
		if best < 0 || c.finish < cs[best].finish-tieEpsilon {
			best = k
		}
	}
	if best < 0 || !pt.Power {
		return best
	}
	limit := cs[best].finish + math.Max(0, pt.Within) + tieEpsilon
	if pt.WithinMakespan {
		limit = math.Max(limit, span+tieEpsilon)
	}
	bestE := ms[cs[best].machine].addedEnergy(cs[best].start, cs[best].exec)
	for k, c := range cs {
		if c.finish > limit || k == best {
			continue
		}
		e := ms[c.machine].addedEnergy(c.start, c.exec)
		if e < bestE-1e-9 || (e <= bestE+1e-9 && c.finish < cs[best].finish-tieEpsilon) {
			best, bestE = k, e
		}
	}
	return best
}

// MapSchedule is Algorithm 1 (and, with tie.Power, Algorithm 2 / TMaR*):
// repeatedly give the next unscheduled map to the core that minimises its
// finish time (line 5) and update the core-available vector (line 6). exec
// returns the job's map execution time on a machine (its Map_Matrix row);
// ready is when the tasks may start. The machines' CoreFree vectors are
// updated in place so successive calls continue the same schedule.
func MapSchedule(ms []Machine, tasks int, ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	out := make([]Placement, 0, tasks)
	cs := make([]cand, 0, len(ms))
	span := horizon(ms)
	for range tasks {
		cs = cs[:0]
		for i := range ms {
			core, free := ms[i].earliest()
			if core < 0 {
				continue
			}
			start := math.Max(free, ready)
			e := exec(i)
			cs = append(cs, cand{machine: i, core: core, start: start, finish: start + e, exec: e})
		}
		k := tie.choose(ms, cs, span)
		if k < 0 {
			break
		}
		c := cs[k]
		ms[c.machine].CoreFree[c.core] = c.finish
		span = math.Max(span, c.finish)
		out = append(out, Placement{Machine: c.machine, Start: c.start, Finish: c.finish})
	}
	return out
}

// Partition is one reduce partition: its total size and where its
// sub-partitions (map outputs) lie, by machine index.
type Partition struct {
	ID    int
	Bytes int64
	// At maps machine index -> bytes of this partition stored there.
	At map[int]int64
	// Run is how many reducer tasks will actually process the partition
	// when the executor cannot spawn N_R of them (a MapReduce job's reducer
	// count is fixed at submission: one reducer per partition); 0 means the
	// paper's N_R = ceil(size / R_split) run.
	Run int
}

// Network gives the bandwidth (bytes/s) and latency (s) between machines:
// the paper's C_B matrix and L vector.
type Network interface {
	Bandwidth(from, to int) float64
	Latency(from, to int) float64
}

// RackNetwork is a Network with one bandwidth within a rack, one across
// racks and one latency. BindPartitions then sums each partition's pieces
// per rack once instead of per machine pair (same result, O(racks) per
// machine). Machine -1 (gone) is in no rack.
type RackNetwork interface {
	Network
	RackOf(machine int) int // -1 for none
	InRack() float64
	CrossRack() float64
}

// rackSums is a partition's bytes per rack, for a RackNetwork.
type rackSums struct {
	total  int64
	byRack map[int]int64
}

func sumRacks(p Partition, net RackNetwork) rackSums {
	rs := rackSums{byRack: map[int]int64{}}
	for from, b := range p.At {
		rs.total += b
		if r := net.RackOf(from); r >= 0 {
			rs.byRack[r] += b
		}
	}
	return rs
}

// Binding is the outcome of PRB for one partition.
type Binding struct {
	Partition int
	Machine   int
	Reducers  int // N_R, the paper's reducer count for the partition
	Bytes     int64
	Start     float64
	Finish    float64
}

// BindPartitions is Algorithm 3 with PRB (Algorithm 4): partitions sorted by
// size, largest first (line 3); for each, N_R = ceil(size / rSplit), and on
// every machine the reducers' finish time (eq. 3) = start (eq. 4: the later
// of the machine's cores being free and all sub-partitions having arrived,
// eq. 5) + execution of N_R reducers; the machine with the minimum wins and
// its core-available vector is updated (Algorithm 3 line 7). reduceExec
// gives one reducer's execution time for a given input on a machine
// (Reduce_Matrix). now is the earliest start.
//
// Ours: every sub-partition reaches a machine through its one network link,
// so the transfer of eq. 5 is the sum over the remote pieces, and the link
// is busy with the partitions already bound there (a link-available vector
// kept like the core-available one); when a partition sets Run, that many
// reducers execute it (N_R is still reported).
func BindPartitions(ms []Machine, parts []Partition, net Network, rSplit int64, now float64,
	reduceExec func(machine int, bytes int64) float64) []Binding {
	sorted := append([]Partition(nil), parts...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Bytes != sorted[j].Bytes {
			return sorted[i].Bytes > sorted[j].Bytes
		}
		return sorted[i].ID < sorted[j].ID
	})
	if rSplit <= 0 {
		rSplit = 1
	}
	out := make([]Binding, 0, len(sorted))
	linkFree := make([]float64, len(ms))
	for i := range linkFree {
		linkFree[i] = now
	}
	rnet, isRack := net.(RackNetwork)
	for _, p := range sorted {
		var rs rackSums
		if isRack {
			rs = sumRacks(p, rnet)
		}
		nr := int(math.Ceil(float64(p.Bytes) / float64(rSplit)))
		nr = max(nr, 1)
		run := nr
		if p.Run > 0 {
			run = p.Run
		}
		per := p.Bytes / int64(run)
		best := Binding{Partition: p.ID, Machine: -1, Reducers: nr, Bytes: p.Bytes, Finish: math.Inf(1)}
		var bestCores []float64
		var bestArrive float64
		for i := range ms {
			if len(ms[i].CoreFree) == 0 {
				continue
			}
			arrive := now // all of it local
			var tt float64
			if isRack {
				tt = rackTransferTime(i, p, rs, rnet)
			} else {
				tt = transferTime(i, p, net)
			}
			if tt > 0 {
				arrive = linkFree[i] + tt // eq. 5 through i's link
			}
			cores := append([]float64(nil), ms[i].CoreFree...)
			sort.Float64s(cores)
			exec := reduceExec(i, per)
			// Algorithm 4 lines 7–12: reducers beyond the free cores queue
			// behind them; each reducer starts when a core frees and the
			// data has arrived (eq. 4).
			var start, finish float64
			for r := range run {
				c := 0
				for k := 1; k < len(cores); k++ {
					if cores[k] < cores[c] {
						c = k
					}
				}
				s := math.Max(math.Max(cores[c], arrive), now)
				if r == 0 {
					start = s
				}
				cores[c] = s + exec
				finish = math.Max(finish, cores[c])
			}
			if finish < best.Finish-tieEpsilon {
				best = Binding{Partition: p.ID, Machine: i, Reducers: nr, Bytes: p.Bytes, Start: start, Finish: finish}
				bestCores, bestArrive = cores, arrive
			}
		}
		if best.Machine < 0 {
			continue
		}
		ms[best.Machine].CoreFree = bestCores
		linkFree[best.Machine] = bestArrive
		out = append(out, best)
	}
	return out
}

// rackTransferTime is transferTime on a RackNetwork from per-rack sums.
func rackTransferTime(to int, p Partition, rs rackSums, net RackNetwork) float64 {
	r := net.RackOf(to)
	same := rs.byRack[r] - p.At[to]
	if r < 0 {
		same = 0
	}
	cross := rs.total - p.At[to] - same
	if same <= 0 && cross <= 0 {
		return 0
	}
	if net.InRack() <= 0 || net.CrossRack() <= 0 {
		return math.Inf(1)
	}
	return net.Latency(-1, to) + float64(same)/net.InRack() + float64(cross)/net.CrossRack()
}

// transferTime is eq. 5 over all sub-partitions: L_ab + size / BW_ab for
// each remote piece. The pieces share the receiving link, so their times
// add up (ours; read per piece, the slowest alone would be the bound).
func transferTime(to int, p Partition, net Network) float64 {
	var total, lat float64
	// Deterministic order over the map.
	froms := make([]int, 0, len(p.At))
	for from := range p.At {
		froms = append(froms, from)
	}
	sort.Ints(froms)
	for _, from := range froms {
		if from == to || p.At[from] == 0 {
			continue
		}
		bw := net.Bandwidth(from, to)
		if bw <= 0 {
			return math.Inf(1)
		}
		total += float64(p.At[from]) / bw
		lat = math.Max(lat, net.Latency(from, to))
	}
	return lat + total
}

// MapTask is one unscheduled map for PlanMaps.
type MapTask struct {
	// Local lists the machines that hold the task's input (its replicas).
	Local []int
	// Read is the time to read the input node-local, rack-local and
	// off-rack (added to the machine's Map_Matrix entry).
	Read [3]float64
}

// PlanMaps is Algorithm 1 over a batch of maps (with tie.Power, Algorithm
// 2): repeatedly the core that finishes a map first gets one (line 5) and
// the core-available vector is updated (line 6). Line 5 leaves open which of
// the unscheduled maps the core takes; ours takes one whose input is on the
// machine, else in its rack, else the first left, so the plan keeps maps
// data-local whenever that costs no finish time. rack gives each machine's
// rack index. The returned placements are in planning order; Task is the
// index into tasks. ms's CoreFree vectors are updated in place.
func PlanMaps(ms []Machine, rack []int, tasks []MapTask, ready float64, exec func(machine int) float64, tie PowerTie) []Placement {
	nodeQ := make([][]int, len(ms))
	rackQ := map[int][]int{}
	for ti, t := range tasks {
		seen := map[int]bool{}
		for _, m := range t.Local {
			if m < 0 || m >= len(ms) {
				continue
			}
			nodeQ[m] = append(nodeQ[m], ti)
			if r := rack[m]; !seen[r] {
				seen[r] = true
				rackQ[r] = append(rackQ[r], ti)
			}
		}
	}
	done := make([]bool, len(tasks))
	anyHead := 0
	// first returns the first task of q not yet planned, dropping the
	// planned ones before it.
	first := func(q []int) ([]int, int) {
		for len(q) > 0 && done[q[0]] {
			q = q[1:]
		}
		if len(q) == 0 {
			return q, -1
		}
		return q, q[0]
	}
	out := make([]Placement, 0, len(tasks))
	cs := make([]cand, 0, len(ms))
	span := horizon(ms)
	for range tasks {
		cs = cs[:0]
		for i := range ms {
			core, free := ms[i].earliest()
			if core < 0 {
				continue
			}
			var ti int
			level := 0
			nodeQ[i], ti = first(nodeQ[i])
			if ti < 0 {
				level = 1
				rackQ[rack[i]], ti = first(rackQ[rack[i]])
			}
			if ti < 0 {
				level = 2
				for anyHead < len(tasks) && done[anyHead] {
					anyHead++
				}
				ti = anyHead
			}
			e := exec(i) + tasks[ti].Read[level]
			start := math.Max(free, ready)
			cs = append(cs, cand{machine: i, core: core, task: ti, start: start, finish: start + e, exec: e})
		}
		k := tie.choose(ms, cs, span)
		if k < 0 {
			break
		}
		c := cs[k]
		done[c.task] = true
		ms[c.machine].CoreFree[c.core] = c.finish
		span = math.Max(span, c.finish)
		out = append(out, Placement{Machine: c.machine, Task: c.task, Start: c.start, Finish: c.finish})
	}
	return out
}
