package learning

import (
	"math"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// JobFeatures are a job part's resource demands on the paper's 1–10 scale
// (§IV-A, Fig. 7).
type JobFeatures struct {
	CPU, Memory, Disk, Network int
}

func fromEvents(f *events.Features) JobFeatures {
	return JobFeatures{CPU: f.CPU, Memory: f.Memory, Disk: f.Disk, Network: f.Network}
}

func (j JobFeatures) values() [4]int { return [4]int{j.CPU, j.Memory, j.Disk, j.Network} }

// Features are the raw feature variables of one candidate on one node
// (§IV-A): job features, node static features, node dynamic features.
type Features struct {
	Job    JobFeatures
	Reduce bool // the candidate is a job's reduce part (§IV: map and reduce parts differ)

	// Node static features.
	VCores   int
	MemoryMB int
	CPUMHz   int

	// Node dynamic features, from the latest heartbeat.
	LoadPerCore       float64 // load1 / vcores
	CPUUtil           float64
	VCoresUsed        float64 // fraction
	MemoryUsed        float64 // fraction
	DiskBps           float64
	NetBps            float64
	ContainersPerCore float64
	// LoadTrend is the change of load per core since the previous sample.
	LoadTrend float64
}

// nodeFeatures reads a node's static and dynamic features.
func nodeFeatures(n *cluster.Node) Features {
	f := Features{VCores: n.VCores, MemoryMB: n.MemoryMB, CPUMHz: n.CPUMHz}
	f.LoadPerCore = reading(n, MetricLoadPerCore)
	f.CPUUtil = n.CPUUtil
	f.VCoresUsed = reading(n, MetricVCoresUsed)
	f.MemoryUsed = reading(n, MetricMemoryUsed)
	f.DiskBps = reading(n, MetricDiskBps)
	f.NetBps = reading(n, MetricNetBps)
	f.ContainersPerCore = reading(n, MetricContainersPerCore)
	if h := n.History; h.Len() >= 2 {
		f.LoadTrend = (h.At(h.Len()-1).Load1 - h.At(h.Len()-2).Load1) / float64(max(1, n.VCores))
	}
	return f
}

// The discretisation of §V-A ("a simple histogram for counting
// probabilities of discrete features"): one histogram per feature, with the
// cardinalities below. Load-like features are binned relative to the
// target, so what is learned at one target carries over to another.
func featureBins() []int {
	return []int{
		10, 10, 10, 10, // job cpu, memory, disk, network: the 1..10 scale itself
		2,  // map or reduce part
		7,  // vcores: 1, 2, 4, ..., 64+ (log2)
		8,  // memory: <2 GiB, <4, ..., 128+ (log2)
		9,  // cpu_mhz in 500 MHz steps (0: unknown)
		21, // load per core in tenths of the target, 2×target and above share the last bin
		11, // cpu_util in tenths
		11, // used vcores fraction in tenths
		11, // used memory fraction in tenths
		6,  // disk bytes/s: 0, <1 MB/s, <10, <100, <1000, more
		6,  // network bytes/s, same steps
		21, // running containers per core in tenths of the target
		5,  // load trend per core: falling fast, falling, flat, rising, rising fast
	}
}

// layoutVersion changes whenever the feature layout does; a stored model of
// another layout is discarded.
const layoutVersion = 1

// NumFeatures is the number of feature variables n.
const NumFeatures = 16

func clampInt(x, lo, hi int) int { return min(hi, max(lo, x)) }

func tenths(x float64, top int) int {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	return clampInt(int(math.Floor(x*10+1e-9)), 0, top)
}

func log2Bin(x float64, top int) int {
	if x < 1 {
		return 0
	}
	return clampInt(int(math.Floor(math.Log2(x)+1e-9)), 0, top)
}

func rateBin(bps float64) int {
	switch {
	case bps <= 0:
		return 0
	case bps < 1e6:
		return 1
	case bps < 1e7:
		return 2
	case bps < 1e8:
		return 3
	case bps < 1e9:
		return 4
	}
	return 5
}

func trendBin(d float64) int {
	switch {
	case d < -0.2:
		return 0
	case d < -0.05:
		return 1
	case d <= 0.05:
		return 2
	case d <= 0.2:
		return 3
	}
	return 4
}

// Bins discretises f for the histogram counts; target scales the
// load-like features.
func (f *Features) Bins(target float64) []int {
	j := f.Job.values()
	b := make([]int, 0, NumFeatures)
	for _, v := range j {
		b = append(b, clampInt(v, 1, 10)-1)
	}
	red := 0
	if f.Reduce {
		red = 1
	}
	b = append(b, red,
		log2Bin(float64(f.VCores), 6),
		log2Bin(float64(f.MemoryMB)/1024, 7),
		clampInt(f.CPUMHz/500, 0, 8),
		tenths(f.LoadPerCore/target, 20),
		tenths(f.CPUUtil, 10),
		tenths(f.VCoresUsed, 10),
		tenths(f.MemoryUsed, 10),
		rateBin(f.DiskBps),
		rateBin(f.NetBps),
		tenths(f.ContainersPerCore/target, 20),
		trendBin(f.LoadTrend/target),
	)
	return b
}

// Vector scales f to roughly [0, 1] per component for the perceptron (a
// linear classifier needs comparable scales; §IV-E argues each feature has
// a separating value, so one weight per feature suffices).
func (f *Features) Vector(target float64) []float64 {
	j := f.Job.values()
	x := make([]float64, 0, NumFeatures)
	for _, v := range j {
		x = append(x, float64(clampInt(v, 1, 10))/10)
	}
	red := 0.0
	if f.Reduce {
		red = 1
	}
	x = append(x, red,
		math.Min(float64(f.VCores)/64, 1),
		math.Min(float64(f.MemoryMB)/(256*1024), 1),
		math.Min(float64(f.CPUMHz)/4000, 1),
		math.Min(f.LoadPerCore/target, 2),
		f.CPUUtil,
		f.VCoresUsed,
		f.MemoryUsed,
		math.Min(f.DiskBps/1e9, 1),
		math.Min(f.NetBps/1e9, 1),
		math.Min(f.ContainersPerCore/target, 2),
		math.Max(-1, math.Min(f.LoadTrend/target, 1)),
	)
	return x
}
