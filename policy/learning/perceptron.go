package learning

// Perceptron is the classifier of §IV-D: c(F) = 1 (good) if W·F + b > 0,
// else 0 (bad).
type Perceptron struct {
	W     []float64 `json:"w"`
	B     float64   `json:"b"`
	Alpha float64   `json:"alpha"`
	// Updates counts the mistakes corrected.
	Updates int `json:"updates"`
}

// NewPerceptron returns a perceptron over n features with zero weights
// (§IV-D: "Initially all the weight variables are set to zero") and bias b.
func NewPerceptron(n int, alpha, b float64) *Perceptron {
	return &Perceptron{W: make([]float64, n), B: b, Alpha: alpha}
}

// Margin is W·F + b.
func (p *Perceptron) Margin(x []float64) float64 {
	s := p.B
	for j, w := range p.W {
		s += w * x[j]
	}
	return s
}

// Classify is c(F): true (1, good) when W·F + b > 0.
func (p *Perceptron) Classify(x []float64) bool { return p.Margin(x) > 0 }

// Learn applies the update rule w_j = w_j + α(y − c(F))F_j for j = 1..n
// (§IV-D), only when the prediction c(F) differs from the judged label y.
// The bias is the weight of a constant input 1 and follows the same rule
// (Duda, Hart and Stork, the paper's [13]). It reports whether it updated.
func (p *Perceptron) Learn(x []float64, good bool) bool {
	c, y := 0.0, 0.0
	if p.Classify(x) {
		c = 1
	}
	if good {
		y = 1
	}
	if y == c {
		return false
	}
	d := p.Alpha * (y - c)
	for j := range p.W {
		p.W[j] += d * x[j]
	}
	p.B += d
	p.Updates++
	return true
}
