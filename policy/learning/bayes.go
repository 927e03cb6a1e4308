package learning

import (
	"fmt"
	"math"
)

// NaiveBayes is the classifier of §IV-C: per class, a histogram of each
// discrete feature's values, and the class counts for the prior.
type NaiveBayes struct {
	// Bins are the cardinalities of the features.
	Bins []int `json:"bins"`
	// Class counts the judged decisions per class: [bad, good].
	Class [2]float64 `json:"class"`
	// Count[c][i][v] counts decisions of class c whose feature i had value v.
	Count [2][][]float64 `json:"count"`
	// Laplace is the add-λ smoothing.
	Laplace float64 `json:"laplace"`
}

// NewNaiveBayes returns an untrained classifier over features of the given
// cardinalities.
func NewNaiveBayes(bins []int, laplace float64) *NaiveBayes {
	nb := &NaiveBayes{Bins: append([]int(nil), bins...), Laplace: laplace}
	for c := range nb.Count {
		nb.Count[c] = make([][]float64, len(bins))
		for i, k := range bins {
			nb.Count[c][i] = make([]float64, k)
		}
	}
	return nb
}

func (nb *NaiveBayes) check(x []int) error {
	if len(x) != len(nb.Bins) {
		return fmt.Errorf("naive bayes: %d features, want %d", len(x), len(nb.Bins))
	}
	for i, v := range x {
		if v < 0 || v >= nb.Bins[i] {
			return fmt.Errorf("naive bayes: feature %d value %d outside 0..%d", i, v, nb.Bins[i]-1)
		}
	}
	return nil
}

// Prior is P(τ = class) from the class counts, smoothed.
func (nb *NaiveBayes) Prior(good bool) float64 {
	c := cls(good)
	return (nb.Class[c] + nb.Laplace) / (nb.Class[0] + nb.Class[1] + 2*nb.Laplace)
}

// Likelihood is P(F_i = v | τ = class) from the histogram, smoothed.
func (nb *NaiveBayes) Likelihood(good bool, i, v int) float64 {
	c := cls(good)
	return (nb.Count[c][i][v] + nb.Laplace) / (nb.Class[c] + nb.Laplace*float64(nb.Bins[i]))
}

// Joint is P(τ = class)·∏ P(F_i | τ = class), the numerator of Bayes'
// theorem under the naive independence assumption (§IV-C). For the good
// class it is E.U.*(J)/U(J).
func (nb *NaiveBayes) Joint(good bool, x []int) float64 {
	// Summed in logs so many small factors do not underflow.
	s := math.Log(nb.Prior(good))
	for i, v := range x {
		s += math.Log(nb.Likelihood(good, i, v))
	}
	return math.Exp(s)
}

// PosteriorGood is P(τ = good | F_1..F_n): the joints normalised by their
// sum, the denominator P(F_1..F_n) the paper skips when only comparing.
func (nb *NaiveBayes) PosteriorGood(x []int) float64 {
	g, b := nb.Joint(true, x), nb.Joint(false, x)
	if g+b == 0 {
		return 0.5
	}
	return g / (g + b)
}

// Classify labels x good when P(good | F) ≥ P(bad | F) (§IV-C: "depending on
// which of the two probabilities is higher"; a tie, as before any training,
// counts as good so the first decisions are made and judged). weight is
// P(good)·∏P(F_i|good), the factor of U(J) in E.U.*.
func (nb *NaiveBayes) Classify(x []int) (good bool, weight, pGood float64) {
	g, b := nb.Joint(true, x), nb.Joint(false, x)
	p := 0.5
	if g+b > 0 {
		p = g / (g + b)
	}
	return g >= b, g, p
}

// Learn counts one judged decision.
func (nb *NaiveBayes) Learn(x []int, good bool) {
	c := cls(good)
	nb.Class[c]++
	for i, v := range x {
		nb.Count[c][i][v]++
	}
}

func cls(good bool) int {
	if good {
		return 1
	}
	return 0
}
