// The plugin: the policy TMaR (tmar) and TMaR* (tmar-power), its names,
// state and the profiles it saves. The concepts live beside it: the learned
// matrices (matrices.go), the map stage (placement.go, schedule.go), PRB
// (binding.go, prb.go) and the power tie-break (power.go).

package tmar

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/rs/zerolog"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/policy"
)

// Registered names.
const (
	Name      = "tmar"
	NamePower = "tmar-power"
)

// gib is the GB of Reduce_Matrix (seconds per GB of reducer input): 2^30
// bytes, as the simulator's reduce_s_per_gb and Hadoop's sizes count it; at
// 1e9 every reducer's execution was planned 7 % long.
const gib = 1 << 30

// profileNS is the profiles namespace of the learned matrices.
const profileNS = "tmar"

// Plugin is TMaR (or TMaR* when powerAware).
type Plugin struct {
	name       string
	powerAware bool
	cfg        Config
	store      policy.ProfileStore
	log        zerolog.Logger
	// lapses is what Bind remembers of when its hints lapse in the engine
	// (lapse.go, UseInForce).
	lapses policy.Lapses

	learner  // Map_Matrix and Reduce_Matrix (matrices.go)
	mapStage // the machine model and the maps planned (placement.go)
	prb      // the partitions bound (binding.go)
}

// learner is what TMaR learns and the caches of what it reads from it.
type learner struct {
	learned map[string]*matrices // by job type
	rates   map[string]*jobRate  // by app id, while the app runs
	// seedMean is the mean of each job type's seeded Map_Matrix row.
	seedMean map[string]float64
	loaded   map[string]bool
	dirty    map[string]bool
	// learnVer counts changes to what mapExec reads (matrices, job rates).
	learnVer uint64
	outSums  map[string]outputSums // by app id (see partitionBytes)
	// outTotals keeps outputTotal per app id.
	outTotals map[string]*outTotal
}

// mapStage is the map stage's state: the machine model of the current
// instant and the placements made for tasks not yet started.
type mapStage struct {
	modelAt  int64
	machines []Machine
	index    map[string]int  // node id -> machine
	hostIdx  map[string]int  // node id and host name -> machine
	rackIx   []int           // machine -> rack number
	nodeAt   []*cluster.Node // machine -> node of the view
	// What index, hostIdx and rackIx were made from (indexNodes).
	idxNodes         []*cluster.Node
	idxIDs, idxRacks []string
	coreBuf          []float64 // every machine's CoreFree
	holdSc           holdScratch
	redApps          reducerApps // model's, per app of a running reducer
	reserved         map[string]*reservation
	// byID and bySubmit: the reservations in the orders holds and replan
	// read them (reserved.go).
	byID, bySubmit resOrder
	// idxGen counts the rebuilds of index, hostIdx and rackIx.
	idxGen uint64
	// reservedPeak is the most reservations since the map was last made
	// (see shrinkReserved).
	reservedPeak int
	// replanning: the model being built leaves out the maps being
	// re-planned (replan); it reads the other reservations from
	// replanKept, which replan's walk over them made.
	replanning bool
	replanKept []*reservation
	// execKey names the Map_Matrix column execCol holds: Place's estimates
	// for a map of that app and split size on every machine of the model.
	execKey                 execKey
	execCol                 []float64
	execColRack, execColOff []float64
	// colGen counts the columns mapColumn made (rackPick's are of one).
	colGen uint64
	// rackPick is Place's choice by rack among the maps of one column,
	// pickRacks what placeMapPick reads of it.
	rackPick  rackPick
	pickRacks pickRacks
	// early is each machine's earliest core between the Place calls of one
	// model instant; reset whenever something else changes the cores.
	early earliestCache
	// Place's buffers, reused between calls.
	execBuf   []float64
	lvBuf     []uint8
	rackMark  []uint64 // rack number -> rackStamp when it holds a replica (levelCodes)
	rackStamp uint64
	replRacks []int   // levelCodes: the racks holding a replica
	lvInput   bool    // levelCodes: the map names a host
	offFill   []uint8 // levelCodes: lvOff for every machine
	// byRack is the machines by rack number under the node index of
	// generation byRackGen (rackMachines).
	byRack    [][]int
	byRackOK  bool
	byRackGen uint64
	byRackN   int
	finBuf    []float64
	localBuf  []int // levelCodes: the node-local machines of the map, in order
	// planSc is PlanMaps' working state, reused by the re-plans.
	planSc planScratch
	// replanExec is a re-plan batch's Map_Matrix column (mapExecs).
	replanExec []float64
	// The re-plan's lists, reused between ticks (a job of 65,000 maps
	// grew them at every tick): the maps, which of them were placed, a
	// batch's MapTasks.
	replanRs      []*reservation
	replanKeptBuf []*reservation // replanSplit's other reservations
	replanPlaced  []bool
	replanMts     []MapTask
	// jobQ is the large jobs' queues kept between re-plans (replanq.go).
	jobQ map[*cluster.App]*jobQueues
	// hintBuf is the slice the last Bind returned, whose array the next
	// one reuses.
	hintBuf []policy.Hint
	// holds' scratch for the reasons and where each ends.
	reasonBuf []byte
	endsBuf   []int
	altBuf    []int
	// holds' scratch: the holds returned and their localities; a hint's
	// target and content as they are built (hintKeyOf).
	sendBuf []*reservation
	locBuf  []events.Locality
	keyBuf  []byte
}

// prb is the reduce stage's state: PRB's plan per app.
type prb struct {
	plans    map[string]map[int]Binding // app -> partition -> PRB outcome (node = Machine of the model then)
	planNode map[string]map[int]string  // app -> partition -> bound node id
	// partScratch is partitions' table, reused between plans.
	partScratch partScratch
	// sharedSc is BindPartitionsShared's per-machine state, reused by the
	// plans; partBlocks BindPartitions' blocks (prbBlocks).
	sharedSc   sharedScratch
	partBlocks prbBlocks
	// net is the rack network of the node index of generation netGen.
	net    rackNet
	netGen uint64
	// srcMark, srcStamp: plan's count of the machines holding a piece.
	srcMark  []uint64
	srcStamp uint64
	// redCounts caches each planned app's reducers per partition
	// (reducersOf), dropped with the plan.
	redCounts map[string]*reducerCount
	// bound is each planned app's bindings in partition order, as Bind
	// renews them (boundOf), dropped with the plan.
	bound map[string][]boundPart
	// startMark, startStamp: Bind's set of partitions whose reducer has
	// started (dense ids; startFar the others).
	startMark  []uint64
	startStamp uint64
	startFar   map[int]bool

	// What PRB predicted, for Extra: the sum over planned apps of their
	// predicted completion (latest reducer finish) since submission.
	planJCTSum float64
	planApps   int
}

// New builds tmar.
func New(_ context.Context, h policy.Handle) (policy.Plugin, error) { return newPlugin(Name, false, h) }

// NewPower builds tmar-power (TMaR*).
func NewPower(_ context.Context, h policy.Handle) (policy.Plugin, error) {
	return newPlugin(NamePower, true, h)
}

func newPlugin(name string, power bool, h policy.Handle) (*Plugin, error) {
	cfg := DefaultConfig()
	if h.Args != nil {
		if err := h.Args.Decode(name, &cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("policies.%s.%w", name, err)
	}
	p := &Plugin{name: name, powerAware: power, cfg: cfg, store: h.Profiles, log: h.Log, lapses: newLapses(),
		learner: learner{learned: map[string]*matrices{}, rates: map[string]*jobRate{}, loaded: map[string]bool{},
			dirty: map[string]bool{}, seedMean: map[string]float64{}, outSums: map[string]outputSums{},
			outTotals: map[string]*outTotal{}},
		mapStage: mapStage{reserved: map[string]*reservation{}, modelAt: -1,
			byID: resOrder{cmp: byTaskID}, bySubmit: resOrder{cmp: bySubmission}},
		prb: prb{plans: map[string]map[int]Binding{}, planNode: map[string]map[int]string{}, redCounts: map[string]*reducerCount{},
			bound: map[string][]boundPart{}}}
	for jt, row := range cfg.MapMatrix {
		var sum float64
		n := 0
		for _, k := range slices.Sorted(maps.Keys(row)) { // key order: see rowMean
			if v := row[k]; v > 0 {
				sum += v
				n++
			}
		}
		if n > 0 {
			p.seedMean[jt] = sum / float64(n)
		}
	}
	return p, nil
}

// Name implements policy.Plugin.
func (p *Plugin) Name() string { return p.name }

// StrictPlacement implements policy.StrictPlacer.
func (p *Plugin) StrictPlacement() bool { return p.cfg.Strict }

func jobType(a *cluster.App) string {
	if a == nil || a.JobType == "" {
		return "default"
	}
	return a.JobType
}

// Flush saves the learned matrices.
func (p *Plugin) Flush(ctx context.Context) error {
	if p.store == nil {
		return nil
	}
	types := make([]string, 0, len(p.dirty))
	for jt := range p.dirty {
		types = append(types, jt)
	}
	sort.Strings(types)
	for _, jt := range types {
		if err := p.store.Put(ctx, profileNS, jt, p.learned[jt]); err != nil {
			return fmt.Errorf("save TMaR matrices of %s: %w", jt, err)
		}
		delete(p.dirty, jt)
	}
	return nil
}

var (
	_ policy.Observer = (*Plugin)(nil)
	_ policy.Placer   = (*Plugin)(nil)
	_ policy.Binder   = (*Plugin)(nil)
	_ policy.Flusher  = (*Plugin)(nil)

	_ policy.InForceUser = (*Plugin)(nil)
)
