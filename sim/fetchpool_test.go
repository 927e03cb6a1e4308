package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy/plugins"
)

// On a cluster of at most denseFetchNodes nodes every reducer's poll uses
// one table by node (getPend, putIndex) that other reducers' polls wrote,
// and lists come back to a pool as they empty; on a larger cluster each
// reducer keeps a hash table. Over random polls (by node and by rack, of
// reducers whose lists are empty or not), fetches and ends of reducers,
// each reducer's lookups and list are those of a fresh map per reducer.
func TestPooledFetchIndexSameAsMap(t *testing.T) {
	for _, nodes := range []int{7, 300, denseFetchNodes + 1} {
		t.Run(fmt.Sprint(nodes, "nodes"), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(nodes), 9))
			const nRacks = 5
			s := &sim{nodes: make([]*node, nodes), racks: make([]rack, nRacks), nodeNet: make([]nodeNet, nodes)}
			var rep [nRacks]int32 // a rack's first node stands for it (rackRep)
			for n := range s.nodeNet {
				r := int32(n * nRacks / nodes)
				s.nodeNet[n].rack = r
				if n == 0 || s.nodeNet[n-1].rack != r {
					rep[r] = int32(n)
				}
			}
			type ref struct {
				q      []pendFetch
				latest map[int32]int // key (source, or rack) -> its latest entry in q
			}
			const reds = 9
			atts := make([]*attempt, reds)
			var table *fetchIndex // the one table by node, once made
			refs := make([]ref, reds)
			start := func(r int) {
				atts[r] = &attempt{rackFetch: r%3 == 0}
				refs[r] = ref{latest: map[int32]int{}}
			}
			for r := range reds {
				start(r)
			}
			released, rebuilt := 0, 0
			for step := range 200_000 {
				r := rng.IntN(reds)
				a, rf := atts[r], &refs[r]
				switch op := rng.IntN(100); {
				case op < 60: // a poll lists outputs (poll's loops)
					if int(a.fetchHead) < len(a.fetchQ) {
						rebuilt++
					}
					if a.pend == nil {
						s.getPend(a)
					}
					for range 1 + rng.IntN(6) {
						src := int32(rng.IntN(min(nodes, 40)))
						if rng.IntN(8) == 0 {
							src = int32(rng.IntN(nodes))
						}
						key := src
						if a.rackFetch {
							key = s.nodeNet[src].rack
							src = rep[key]
						}
						b := rng.Int64N(1 << 40)
						head := int(a.fetchHead)
						var i int32
						var listed bool
						if a.rackFetch {
							i = a.pend.racks[key]
							listed = int(i) >= head && int(i) < len(a.fetchQ) && a.fetchQ[i].src == src
						} else {
							i, listed = a.pend.lookup(src, a.fetchQ, head)
						}
						wi, ok := rf.latest[key]
						if wantListed := ok && wi >= head; listed != wantListed || listed && int(i) != wi {
							t.Fatalf("step %d, reducer %d, key %d: lookup %d %v, want %d %v", step, r, key, i, listed, wi, wantListed)
						}
						if listed {
							a.fetchQ[i].bytes += b
							rf.q[i].bytes += b
							continue
						}
						if a.rackFetch {
							a.pend.racks[key] = int32(len(a.fetchQ))
						} else {
							a.pend.set(src, int32(len(a.fetchQ)))
						}
						rf.latest[key] = len(rf.q)
						a.fetchQ = append(a.fetchQ, pendFetch{src: src, bytes: b})
						rf.q = append(rf.q, pendFetch{src: src, bytes: b})
					}
					s.putIndex(a)
				case op < 97: // fetches take entries off the list (fetchMore)
					a.fetchHead = min(int32(len(a.fetchQ)), a.fetchHead+int32(1+rng.IntN(4)))
					if int(a.fetchHead) == len(a.fetchQ) && a.fetchHead > 0 && (a.rackFetch || s.denseFetch()) {
						a.fetchQ, a.fetchHead = a.fetchQ[:0], 0
						s.putPend(a)
						*rf = ref{latest: map[int32]int{}}
						released++
					}
				default: // the copy ends or the attempt stops (copyDone, stop)
					s.putPend(a)
					start(r)
				}
				if a := atts[r]; len(a.fetchQ) != len(refs[r].q) {
					t.Fatalf("step %d, reducer %d: %d entries, want %d", step, r, len(a.fetchQ), len(refs[r].q))
				}
				for k, e := range atts[r].fetchQ {
					if e != refs[r].q[k] {
						t.Fatalf("step %d, reducer %d: entry %d %+v, want %+v", step, r, k, e, refs[r].q[k])
					}
				}
				if s.denseFetch() {
					if table == nil {
						table = s.fetchTable
					}
					if len(s.pendPool) > 0 || s.fetchTable != table {
						t.Fatalf("step %d: another table by node (%d in the pool), want the one", step, len(s.pendPool))
					}
				}
			}
			if released == 0 || rebuilt == 0 {
				t.Fatalf("%d lists handed back as they emptied, %d polls of a list not empty: the test exercises neither", released, rebuilt)
			}
		})
	}
}

// A reducer gives its fetch list and index back whenever the list empties
// and takes them again at its next poll (from the pool, with another
// reducer's stale entries): the results, event log and tasks.csv are those
// of each reducer keeping its own from launch to end with a list that
// only grows (noCompact), on random small clusters and jobs, per node and
// per rack, under stacks that speculate and kill.
func TestFetchPoolRandomScenarios(t *testing.T) {
	reg := plugins.NewRegistry()
	rng := rand.New(rand.NewPCG(20, 26))
	stacks := []string{"none", "yarn", "late"}
	for k := range 8 {
		racks, nodes := 1+rng.IntN(4), 4+rng.IntN(12)
		yml := fmt.Sprintf(`
seed: %d
cluster:
  racks: %d
  nodes:
    - {count: %d, vcores: 4, memory_mb: 8192}
    - {count: 2, vcores: 2, memory_mb: 4096, map_speed: 0.5}
  network: {node_gbps: 1, rack_uplink_gbps: 2, rack_fetch_pairs: %d}
yarn: {heartbeat_s: 1, slowstart: %.2f, parallel_copies: %d}
stragglers: {task_prob: 0.1, slowdown: [2, 5]}
workload:
  jobs:
    - {name: sort, type: sort, submit_s: 0, input_gb: %d, reduces: %d, map_s_per_block: 4, reduce_s_per_gb: 30, skew: 0.4}
    - {name: wc, type: wordcount, submit_s: %d, input_gb: %d, reduces: %d, shuffle_ratio: 0.4, map_s_per_block: 3}
    - {name: one, type: grep, submit_s: 8, input_gb: 0.1, reduces: 2, shuffle_ratio: 1}
`, 1+k, racks, nodes, rng.IntN(2), 0.02+0.5*rng.Float64(), 1+rng.IntN(5),
			5+rng.IntN(20), 2+rng.IntN(10), rng.IntN(20), 3+rng.IntN(15), 1+rng.IntN(8))
		stack := stacks[k%len(stacks)]
		t.Run(fmt.Sprint(k, "/", stack), func(t *testing.T) {
			_, want := runOutputs(t, mustParse(t, yml), stack, Options{Registry: reg, noCompact: true})
			s, got := runOutputs(t, mustParse(t, yml), stack, Options{Registry: reg})
			if s.fetchResets == 0 {
				t.Fatal("no fetch list emptied: the test does not hand an index back")
			}
			sameOutputs(t, got, want, "when fetch lists and indexes go back to the pool as lists empty")
		})
	}
}
