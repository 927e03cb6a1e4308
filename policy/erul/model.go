package erul

import "math"

// This file holds the paper's formulas as pure functions; the plugin wires
// them to the cluster view. Times are seconds, data sizes MB.

// remainingNow is eq. 9: the remaining time if the load stays at its mean so
// far, tRemain_now = (1 − progress_now) · t_now / progress_now.
func remainingNow(progress, elapsed float64) float64 {
	return (1 - progress) * elapsed / progress
}

// erulRemaining is eq. 11: tRemain_est = (1 + Z̄_est) · tRemain_now / (1 + Z̄_now).
// It follows from eq. 7: the nominal time t_nom = tRemain/(1 + Z̄) is the
// same under both load series.
func erulRemaining(tRemainNow, zNow, zEst float64) float64 {
	return (1 + zEst) * tRemainNow / (1 + zNow)
}

// loadSeries follows one attempt's node load as Algorithm 1 does: a running
// mean of every sample since the attempt started (avgLa, eq. 8) and the last
// k samples (lastLoadSerial), one sample per δ.
type loadSeries struct {
	lastTS int64 // ms of the last sample taken
	sum    float64
	count  int
	recent []float64 // lastLoadSerial, oldest first
}

// newLoadSeries is Algorithm 1 lines 1–6: the load at the attempt's start
// seeds the sum and every slot of lastLoadSerial.
func newLoadSeries(ts int64, z float64, k int) *loadSeries {
	s := &loadSeries{lastTS: ts, sum: z, count: 1, recent: make([]float64, k)}
	for i := range s.recent {
		s.recent[i] = z
	}
	return s
}

// observe is Algorithm 1 lines 10–18: a sample counts only once δ has passed
// since the previous one. It reports whether the sample was taken.
func (s *loadSeries) observe(ts int64, z float64, deltaMS int64) bool {
	if ts-s.lastTS < deltaMS {
		return false
	}
	s.lastTS = ts
	s.sum += z
	s.count++
	copy(s.recent, s.recent[1:])
	s.recent[len(s.recent)-1] = z
	return true
}

// mean is Z̄_now of eq. 8 (avgLa of Algorithm 1 line 14).
func (s *loadSeries) mean() float64 { return s.sum / float64(s.count) }

// estimate is Z̄_est of eq. 10 in the concrete form of Algorithm 1 line 19:
// the mean of the last k samples and the running mean, (Σ lastLoadSerial +
// avgLa) / (k + 1). Eq. 10 as printed sums Z̄_now over the last k+1 sample
// times; the algorithm is the unambiguous version, so it is the one used.
func (s *loadSeries) estimate() float64 {
	sum := s.mean()
	for _, z := range s.recent {
		sum += z
	}
	return sum / float64(len(s.recent)+1)
}

// mapPriority is eq. 12: mapSpecPriority = tRemain_map / Data_rem. With
// progress proportional to data this is the time per processed MB (§3.2.1),
// so a task is not ranked first merely because its split is large.
func mapPriority(tRemain, dataRemMB float64) float64 {
	if dataRemMB <= 0 {
		return 0
	}
	return tRemain / dataRemMB
}

// reducePriority is eq. 13: reduceSpecPriority = tRemain_reduce ·
// (Map_total + 1)·α / ((Map_fetched + 1) + β), so a reducer that has fetched
// little in its copy phase ranks higher.
func reducePriority(tRemain float64, mapsTotal, mapsFetched int, alpha, beta float64) float64 {
	return tRemain * float64(mapsTotal+1) * alpha / (float64(mapsFetched+1) + beta)
}

// capabilitySample is the new term of eq. 14: exeTime/Data_total for maps
// (seconds per MB), exeTime for reduces (seconds).
func capabilitySample(isMap bool, exeTime, dataMB float64) float64 {
	if isMap {
		return exeTime / dataMB
	}
	return exeTime
}

// ewmaCapability is eq. 14: capability = α·preCap + (1 − α)·sample.
func ewmaCapability(alpha, preCap, sample float64) float64 {
	return alpha*preCap + (1-alpha)*sample
}

// firstCapability is eq. 15, the capability of a node that has not yet
// finished a task of the class: (time_cost + tRemain)/Data_total for maps,
// time_cost + tRemain for reduces, from its first running task of the class.
func firstCapability(isMap bool, timeCost, tRemain, dataMB float64) float64 {
	return capabilitySample(isMap, timeCost+tRemain, dataMB)
}

// backupTime is eq. 18: procCap·Data_total for maps, procCap for reduces.
func backupTime(isMap bool, procCap, dataMB float64) float64 {
	if isMap {
		return procCap * dataMB
	}
	return procCap
}

// loadFactor is eq. 17: η = numpending_tasks / numfree_slots; with no free
// slot the cluster is infinitely loaded.
func loadFactor(pending, free int) float64 {
	if free <= 0 {
		return math.Inf(1)
	}
	return float64(pending) / float64(free)
}

// mcpWorthIt is eq. 16: back up only if rem_time/backup_time > (1 + 2η)/(1 + η).
// The bound runs from 1 (η = 0: an idle cluster pays only for the time
// saved) to 2 (η → ∞: the backup must at least halve the remaining time,
// since two slots are held while it runs).
func mcpWorthIt(rem, backup, eta float64) bool {
	if backup <= 0 {
		return rem > 0
	}
	return rem/backup > mcpBound(eta)
}

// mcpBound is the right-hand side of eq. 16.
func mcpBound(eta float64) float64 {
	if math.IsInf(eta, 1) {
		return 2
	}
	return (1 + 2*eta) / (1 + eta)
}

// exmcpWorthIt is eq. 19: profit_backup > profit_not_backup ⇔ rem_time >
// t_B + η/(1 + η)·t_A, with t_B the time of the task on the backup slot and
// t_A (t_original, §3.6) its time on the original slot: the cost term of
// MCP, which charges the extra slot as t_B, charges the slot by the value of
// the original one instead. With t_A = t_B eq. 19 is eq. 16.
func exmcpWorthIt(rem, tB, tA, eta float64) bool {
	return rem > exmcpBound(tB, tA, eta)
}

// exmcpBound is the right-hand side of eq. 19.
func exmcpBound(tB, tA, eta float64) float64 {
	w := 1.0
	if !math.IsInf(eta, 1) {
		w = eta / (1 + eta)
	}
	return tB + w*tA
}
