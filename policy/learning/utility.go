package learning

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rmsidecar/rmsidecar/cluster"
	"github.com/rmsidecar/rmsidecar/events"
)

// Candidate is one job part offered to a node: §IV's "one candidate
// instance for Map part and one ... for the Reduce part".
type Candidate struct {
	App  *cluster.App
	Kind events.TaskKind
}

// Env is what a utility function may read besides the candidate. Its
// derived readings are computed on first use and kept for the call: summed
// over every node at every heartbeat, the cluster's vcores alone were a
// sixth of learning-nb's time on a 3,000-node day, for a reading only the
// dedicated utility makes.
type Env struct {
	View cluster.View
	// Budgets is the configured balance per user (vcore-seconds).
	Budgets map[string]float64

	spent     map[string]float64
	vcores    int
	vcoresSet bool
}

// Spent returns the vcore-seconds a user's apps have used so far.
func (e *Env) Spent(user string) float64 {
	if s, ok := e.spent[user]; ok {
		return s
	}
	s := spentVCoreS(e.View, user)
	if e.spent == nil {
		e.spent = map[string]float64{}
	}
	e.spent[user] = s
	return s
}

// ClusterVCores returns the registered vcores of the running nodes.
func (e *Env) ClusterVCores() int {
	if !e.vcoresSet {
		for _, n := range e.View.Nodes() {
			if n.State != cluster.NodeLost {
				e.vcores += n.VCores
			}
		}
		e.vcoresSet = true
	}
	return e.vcores
}

// Utility is a utility function U(J) of §IV-B. A value ≤ 0 keeps the
// candidate out of the assignment.
type Utility interface {
	Value(c Candidate, env *Env) float64
	String() string
}

// Utility function names, as written in app.submitted "utility" and the
// "utility" setting; terms combine by product ("revenue:3*map-before-reduce"),
// the paper's "hybrid scheduling policies".
const (
	UtilityConstant        = "constant"          // constant[:value], default 1
	UtilityFIFO            = "fifo"              // proportional to the job's age
	UtilityMapBeforeReduce = "map-before-reduce" // map-before-reduce[:fraction of maps done], default 1
	UtilityBudget          = "budget"            // budget[:vcore-seconds], else the user's configured budget
	UtilityDedicated       = "dedicated"         // dedicated:fraction of the cluster promised
	UtilityRevenue         = "revenue"           // revenue:amount paid
)

// ParseUtility parses a utility specification.
func ParseUtility(spec string) (Utility, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Constant{V: 1}, nil
	}
	var terms product
	for _, raw := range strings.Split(spec, "*") {
		name, arg, hasArg := strings.Cut(strings.TrimSpace(raw), ":")
		var x float64
		if hasArg {
			var err error
			if x, err = strconv.ParseFloat(strings.TrimSpace(arg), 64); err != nil {
				return nil, fmt.Errorf("%q: parameter %q: %w", raw, arg, err)
			}
		}
		var u Utility
		switch name {
		case UtilityConstant:
			if !hasArg {
				x = 1
			}
			u = Constant{V: x}
		case UtilityFIFO:
			u = FIFO{}
		case UtilityMapBeforeReduce:
			if !hasArg {
				x = 1
			}
			if x < 0 || x > 1 {
				return nil, fmt.Errorf("%q: fraction of maps must be in [0, 1]", raw)
			}
			u = MapBeforeReduce{Fraction: x}
		case UtilityBudget:
			u = Budget{Amount: x, Set: hasArg}
		case UtilityDedicated:
			if !hasArg || x <= 0 || x > 1 {
				return nil, fmt.Errorf("%q: needs the promised fraction in (0, 1], e.g. dedicated:0.25", raw)
			}
			u = Dedicated{Fraction: x}
		case UtilityRevenue:
			if !hasArg || x < 0 {
				return nil, fmt.Errorf("%q: needs the amount paid, e.g. revenue:5", raw)
			}
			u = Revenue{Amount: x}
		default:
			return nil, fmt.Errorf("unknown utility %q (known: constant, fifo, map-before-reduce, budget, dedicated, revenue)", name)
		}
		terms = append(terms, u)
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return terms, nil
}

type product []Utility

func (p product) Value(c Candidate, env *Env) float64 {
	v := 1.0
	for _, u := range p {
		v *= u.Value(c, env)
		if v <= 0 {
			return 0
		}
	}
	return v
}

func (p product) String() string {
	s := make([]string, len(p))
	for i, u := range p {
		s[i] = u.String()
	}
	return strings.Join(s, "*")
}

// Constant gives every job the same utility, so jobs rank by their chance
// of being good alone (§V-C uses it).
type Constant struct{ V float64 }

// Value implements Utility.
func (u Constant) Value(Candidate, *Env) float64 { return u.V }

func (u Constant) String() string { return UtilityConstant + ":" + fmtF(u.V) }

// FIFO makes utility proportional to the job's age, zero at submission
// (§IV-B 2). Ages are in seconds; a job submitted this very millisecond gets
// one millisecond, so it is not excluded.
type FIFO struct{}

// Value implements Utility.
func (FIFO) Value(c Candidate, env *Env) float64 {
	age := env.View.Now() - c.App.SubmitTS
	return float64(max(age, 1)) / 1000
}

func (FIFO) String() string { return UtilityFIFO }

// MapBeforeReduce keeps the reduce part's utility zero until Fraction of the
// job's maps have succeeded (§IV-B 1); maps have utility 1.
type MapBeforeReduce struct{ Fraction float64 }

// Value implements Utility.
func (u MapBeforeReduce) Value(c Candidate, _ *Env) float64 {
	if c.Kind != events.Reduce {
		return 1
	}
	maps := c.App.Maps
	done := 0
	if m := c.App.Count[events.Map]; m != nil {
		done = m.Succeeded
		maps = max(maps, m.Pending+m.Running+m.Succeeded)
	}
	if maps == 0 || float64(done) >= u.Fraction*float64(maps)-1e-9 {
		return 1
	}
	return 0
}

func (u MapBeforeReduce) String() string { return UtilityMapBeforeReduce + ":" + fmtF(u.Fraction) }

// Budget assigns tasks of a user's jobs while the user has balance; at zero
// the utility becomes zero (§IV-B 3). The balance is the budget (this
// function's Amount, else the user's configured one) less the vcore-seconds
// the user's apps have used. A user with no budget anywhere is not limited.
type Budget struct {
	Amount float64
	Set    bool
}

// Value implements Utility.
func (u Budget) Value(c Candidate, env *Env) float64 {
	amount, ok := u.Amount, u.Set
	if !ok {
		amount, ok = env.Budgets[c.App.User]
	}
	if !ok {
		return 1
	}
	if amount-env.Spent(c.App.User) > 0 {
		return 1
	}
	return 0
}

func (u Budget) String() string {
	if u.Set {
		return UtilityBudget + ":" + fmtF(u.Amount)
	}
	return UtilityBudget
}

// Dedicated promises a job Fraction of the cluster's vcores (§IV-B 4). The
// paper has the utility "inversely proportional to the deficit" and zero
// above the promise; read as a guarantee, the job furthest below its promise
// must come first, so the utility is the deficit relative to the promise,
// (f − a)/f, which is zero at or above the promise.
type Dedicated struct{ Fraction float64 }

// Value implements Utility.
func (u Dedicated) Value(c Candidate, env *Env) float64 {
	total := env.ClusterVCores()
	if total <= 0 {
		return 1
	}
	a := float64(runningVCores(c.App)) / float64(total)
	if a >= u.Fraction {
		return 0
	}
	return (u.Fraction - a) / u.Fraction
}

func (u Dedicated) String() string { return UtilityDedicated + ":" + fmtF(u.Fraction) }

// Revenue makes utility proportional to what the submitter pays (§IV-B 5).
type Revenue struct{ Amount float64 }

// Value implements Utility.
func (u Revenue) Value(Candidate, *Env) float64 { return u.Amount }

func (u Revenue) String() string { return UtilityRevenue + ":" + fmtF(u.Amount) }

func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// runningVCores sums the vcores of the app's running attempts (1 when an
// attempt did not report its size).
func runningVCores(a *cluster.App) int {
	n := 0
	for _, t := range a.Tasks {
		for _, at := range t.Attempts {
			if at.Running() {
				n += max(1, at.VCores)
			}
		}
	}
	return n
}

// spentVCoreS sums vcores × run time of every attempt of the user's apps.
func spentVCoreS(v cluster.View, user string) float64 {
	now := v.Now()
	var s float64
	for _, a := range v.Apps() {
		if a.User != user {
			continue
		}
		for _, t := range a.Tasks {
			for _, at := range t.Attempts {
				if at.StartTS == 0 {
					continue
				}
				end := now
				if at.Finished() && at.FinishTS > 0 {
					end = at.FinishTS
				}
				if end > at.StartTS {
					s += float64(max(1, at.VCores)) * float64(end-at.StartTS) / 1000
				}
			}
		}
	}
	return s
}
