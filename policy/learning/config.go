package learning

import (
	"fmt"
	"strings"
	"time"
)

// Config holds the learning scheduler's parameters. New starts from
// DefaultConfig and the policy's settings override the keys they name.
type Config struct {
	// Target is the desired utilisation ratio: the one-minute load average
	// per core the scheduler aims at (§V-C: 1 means a load average of 4 on a
	// quad-core node). The default overload rule is load1_per_core > Target.
	Target float64 `yaml:"target"`
	// Overload lists the overload rules (§IV): a node is overloaded when
	// any rule holds. Empty: [{metric: load1_per_core, above: Target}].
	Overload []Rule `yaml:"overload"`
	// TasksPerHeartbeat is k of §V-A, the decisions made per heartbeat (1).
	TasksPerHeartbeat int `yaml:"tasks_per_heartbeat"`
	// Utility is the utility of an app whose app.submitted carries none
	// (see ParseUtility; default "constant").
	Utility string `yaml:"utility"`
	// Alpha is the perceptron learning rate α (§IV-D: 1).
	Alpha float64 `yaml:"alpha"`
	// InitialBias is the perceptron's b before any update. The paper starts
	// the weights at zero; with b = 0 too, W·F + b = 0 labels every job bad,
	// nothing is ever assigned and nothing judged, so b starts positive
	// (every job good until the first overloads teach otherwise).
	InitialBias float64 `yaml:"initial_bias"`
	// Explore is the chance, on a heartbeat where every candidate is bad
	// and the node is not overloaded, of assigning the most promising
	// candidate anyway. The paper has no exploration, but only assigned
	// decisions are ever judged: a perceptron, which updates only on
	// mistakes, never sees its mistakes on candidates it labels bad, and a
	// Naive Bayes whose first judgements were all bad labels everything bad
	// (the shared job and node features outvote the rest) and never
	// recovers. A small chance of trying keeps both learning (0.05).
	Explore float64 `yaml:"explore"`
	// Laplace is the add-λ smoothing of the histogram counts (1: Laplace),
	// so an unseen feature value does not zero a product.
	Laplace float64 `yaml:"laplace"`
	// AccuracyWindow is the number of judged decisions per accuracy point
	// (Fig. 10: 250).
	AccuracyWindow int `yaml:"accuracy_window"`
	// PlaceHold is how long a task placed by a hint is not offered again
	// while it stays pending (the engine's place-hint lifetime).
	PlaceHold time.Duration `yaml:"place_hold"`
	// Shape turns on node-capacity hints for nodes predicted to overload.
	Shape bool `yaml:"shape"`
	// ShrinkHold is how long a node stays shrunk on one prediction: without
	// a newer heartbeat by then its capacity is restored, so a node that
	// stops reporting (a simulator reports only nodes whose usage changed)
	// is not starved forever on a stale prediction.
	ShrinkHold time.Duration `yaml:"shrink_hold"`
	// Pace (ours, off by default) advertises, for a node not predicted to
	// overload, what it uses plus tasks_per_heartbeat containers (never more
	// than registered) instead of its full capacity: the YARN form of the
	// paper's k tasks per heartbeat (§V-A). Without it a restored node is
	// filled at once by the RM, so one "good" decision becomes several
	// tasks and the classifier learns from decisions it did not make. It
	// costs one node-capacity hint per node whenever its usage changes.
	Pace bool `yaml:"pace"`
	// Budgets is each user's balance for the budget utility, in vcore-seconds
	// (overridden per app by "budget:<amount>").
	Budgets map[string]float64 `yaml:"budgets"`
	// DefaultJobFeature is the feature value used before any job was seen
	// (the middle of the 1–10 scale).
	DefaultJobFeature int `yaml:"default_job_feature"`
}

// DefaultConfig returns the paper's parameters (and ours where it has none).
func DefaultConfig() Config {
	c := Config{
		Target:            1.0,
		TasksPerHeartbeat: 1,
		Utility:           "constant",
		Alpha:             1,
		InitialBias:       1,
		Laplace:           1,
		AccuracyWindow:    250,
		PlaceHold:         60 * time.Second,
		Shape:             true,
		ShrinkHold:        15 * time.Second,
		DefaultJobFeature: 5,
		Explore:           0.05,
	}
	return c
}

// validate reports the first parameter out of range, by its key, and fills
// the default overload rule.
func (c *Config) validate() error {
	switch {
	case c.Target <= 0:
		return fmt.Errorf("target: must be > 0, got %g", c.Target)
	case c.TasksPerHeartbeat < 1:
		return fmt.Errorf("tasks_per_heartbeat: must be >= 1, got %d", c.TasksPerHeartbeat)
	case c.Alpha <= 0:
		return fmt.Errorf("alpha: must be > 0, got %g", c.Alpha)
	case c.Explore < 0 || c.Explore > 1:
		return fmt.Errorf("explore: must be in [0, 1], got %g", c.Explore)
	case c.Laplace <= 0:
		return fmt.Errorf("laplace: must be > 0, got %g", c.Laplace)
	case c.AccuracyWindow < 1:
		return fmt.Errorf("accuracy_window: must be >= 1, got %d", c.AccuracyWindow)
	case c.PlaceHold < 0:
		return fmt.Errorf("place_hold: must be >= 0, got %s", c.PlaceHold)
	case c.ShrinkHold <= 0:
		return fmt.Errorf("shrink_hold: must be > 0, got %s", c.ShrinkHold)
	case c.DefaultJobFeature < 1 || c.DefaultJobFeature > 10:
		return fmt.Errorf("default_job_feature: must be in 1..10, got %d", c.DefaultJobFeature)
	}
	if _, err := ParseUtility(c.Utility); err != nil {
		return fmt.Errorf("utility: %w", err)
	}
	if len(c.Overload) == 0 {
		c.Overload = []Rule{{Metric: MetricLoadPerCore, Above: c.Target}}
	}
	for i, r := range c.Overload {
		if err := r.validate(); err != nil {
			return fmt.Errorf("overload[%d]: %w", i, err)
		}
	}
	return nil
}

// rulesKey names the overload rules; a stored model learned under other
// rules is not reused (§IV: the rule must stay the same for the classifier
// to converge).
func (c *Config) rulesKey() string {
	parts := make([]string, len(c.Overload))
	for i, r := range c.Overload {
		parts[i] = r.String()
	}
	return strings.Join(parts, " or ")
}
