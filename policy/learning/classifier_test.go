package learning

import (
	"math"
	"math/rand/v2"
	"testing"
)

// trainedTable is a hand-computable Naive Bayes: two features with 2 and 3
// values, Laplace smoothing, good samples (0,0), (0,1), (1,1) and bad samples
// (1,2), (1,1).
func trainedTable() *NaiveBayes {
	nb := NewNaiveBayes([]int{2, 3}, 1)
	for _, x := range [][]int{{0, 0}, {0, 1}, {1, 1}} {
		nb.Learn(x, true)
	}
	for _, x := range [][]int{{1, 2}, {1, 1}} {
		nb.Learn(x, false)
	}
	return nb
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestNaiveBayesHandTable checks priors, likelihoods, E.U.* and the
// posterior against values worked out by hand:
//
//	P(good) = (3+1)/(5+2) = 4/7, P(bad) = 3/7
//	P(F1=0|good) = (2+1)/(3+2) = 3/5, P(F1=1|bad) = (2+1)/(2+2) = 3/4
//	P(F2=1|good) = (2+1)/(3+3) = 1/2, P(F2=1|bad) = (1+1)/(2+3) = 2/5
//	x=(0,1): joint good 4/7·3/5·1/2 = 12/70, bad 3/7·1/4·2/5 = 3/70, posterior 12/15 = 0.8
//	x=(1,1): joint good 4/7·2/5·1/2 = 8/70, bad 3/7·3/4·2/5 = 9/70, posterior 8/17
func TestNaiveBayesHandTable(t *testing.T) {
	nb := trainedTable()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"P(good)", nb.Prior(true), 4.0 / 7},
		{"P(bad)", nb.Prior(false), 3.0 / 7},
		{"P(F1=0|good)", nb.Likelihood(true, 0, 0), 3.0 / 5},
		{"P(F1=1|bad)", nb.Likelihood(false, 0, 1), 3.0 / 4},
		{"P(F2=1|good)", nb.Likelihood(true, 1, 1), 1.0 / 2},
		{"P(F2=2|good)", nb.Likelihood(true, 1, 2), 1.0 / 6},
		{"P(F2=1|bad)", nb.Likelihood(false, 1, 1), 2.0 / 5},
		{"joint good (0,1)", nb.Joint(true, []int{0, 1}), 12.0 / 70},
		{"joint bad (0,1)", nb.Joint(false, []int{0, 1}), 3.0 / 70},
		{"posterior (0,1)", nb.PosteriorGood([]int{0, 1}), 0.8},
		{"posterior (1,1)", nb.PosteriorGood([]int{1, 1}), 8.0 / 17},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		x      []int
		good   bool
		weight float64
	}{
		{[]int{0, 1}, true, 12.0 / 70},
		{[]int{1, 1}, false, 8.0 / 70},
	} {
		good, w, _ := nb.Classify(c.x)
		if good != c.good || !near(w, c.weight) {
			t.Errorf("Classify(%v) = %v, %.6g; want %v, %.6g", c.x, good, w, c.good, c.weight)
		}
	}
	// E.U.* = U(J)·P(good)·∏P(F_i|good) with U = 2.
	s := scored{u: 2, weight: nb.Joint(true, []int{0, 1})}
	if !near(s.eu(), 24.0/70) {
		t.Errorf("E.U.* = %g, want 24/70", s.eu())
	}
}

func TestNaiveBayesUntrainedIsGood(t *testing.T) {
	nb := NewNaiveBayes(featureBins(), 1)
	good, _, p := nb.Classify(make([]int, NumFeatures))
	if !good || !near(p, 0.5) {
		t.Fatalf("untrained: good=%v p=%g, want good at 0.5 (a tie is good, so learning can start)", good, p)
	}
	if err := nb.check([]int{0}); err == nil {
		t.Error("check accepted a short vector")
	}
}

// TestPerceptronConvergesOnSeparableData trains on a linearly separable set
// (the §IV-E argument: a node's load and a job's demand have a separating
// hyperplane) and requires an epoch without mistakes.
func TestPerceptronConvergesOnSeparableData(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	type sample struct {
		x    []float64
		good bool
	}
	var data []sample
	for len(data) < 400 {
		load, cpu, mem := rng.Float64()*2, rng.Float64(), rng.Float64()
		s := load + 0.6*cpu + 0.1*mem - 1.2 // bad when s > 0
		if math.Abs(s) < 0.05 {
			continue // keep a margin, so convergence is finite (Novikoff)
		}
		data = append(data, sample{[]float64{load, cpu, mem}, s < 0})
	}
	p := NewPerceptron(3, 1, 0)
	converged := -1
	for epoch := 0; epoch < 1000 && converged < 0; epoch++ {
		mistakes := 0
		for _, d := range data {
			if p.Learn(d.x, d.good) {
				mistakes++
			}
		}
		if mistakes == 0 {
			converged = epoch
		}
	}
	if converged < 0 {
		t.Fatalf("no mistake-free epoch in 1000 (W=%v b=%g)", p.W, p.B)
	}
	for _, d := range data {
		if p.Classify(d.x) != d.good {
			t.Fatalf("misclassified %v after convergence", d.x)
		}
	}
	if p.W[0] >= 0 || p.B <= 0 {
		t.Errorf("W=%v b=%g: load weight should be negative and the bias positive", p.W, p.B)
	}
	t.Logf("converged after %d epochs, %d updates, W=%v b=%.3g", converged+1, p.Updates, p.W, p.B)
}

// TestPerceptronUpdateRule checks w_j = w_j + α(y − c(F))F_j by hand.
func TestPerceptronUpdateRule(t *testing.T) {
	p := NewPerceptron(2, 1, 1) // c(F) = 1 for any F at first
	if p.Learn([]float64{0.5, 2}, true) {
		t.Fatal("a correct prediction must not update")
	}
	if !p.Learn([]float64{0.5, 2}, false) { // y = 0, c = 1: w -= F, b -= 1
		t.Fatal("a wrong prediction must update")
	}
	if p.W[0] != -0.5 || p.W[1] != -2 || p.B != 0 {
		t.Fatalf("after update W=%v b=%g, want [-0.5 -2] 0", p.W, p.B)
	}
	if p.Classify([]float64{0.5, 2}) {
		t.Fatal("still good after the update")
	}
	if !p.Learn([]float64{1, 0}, true) { // y = 1, c = 0 (margin -0.5): w += F, b += 1
		t.Fatal("a wrong bad label must update")
	}
	if p.W[0] != 0.5 || p.W[1] != -2 || p.B != 1 {
		t.Fatalf("after second update W=%v b=%g, want [0.5 -2] 1", p.W, p.B)
	}
}
