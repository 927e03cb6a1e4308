package policy

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Factory builds a plugin.
type Factory func(ctx context.Context, h Handle) (Plugin, error)

// Registry maps policy names to factories. Build one with a constructor
// function (see package plugins); there is no global registry.
type Registry map[string]Factory

// Register adds a factory; a name may be registered once.
func (r Registry) Register(name string, f Factory) error {
	if name == "" || strings.ContainsAny(name, "+, ") {
		return fmt.Errorf("policy name %q: must be non-empty without '+', ',' or spaces", name)
	}
	if _, dup := r[name]; dup {
		return fmt.Errorf("policy %q registered twice", name)
	}
	r[name] = f
	return nil
}

// Names returns the registered names, sorted.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseStacks splits a comma list of stacks ("yarn,samr+sepb") into stacks.
func ParseStacks(list string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Errorf("policies %q: empty stack", list)
		}
		out = append(out, s)
	}
	return out, nil
}

// Build parses a stack "a+b+c" and builds its plugins in order.
func (r Registry) Build(ctx context.Context, stack string, h Handle) (*Stack, error) {
	names := strings.Split(stack, "+")
	st := &Stack{name: stack}
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		if name == "" {
			return nil, fmt.Errorf("stack %q: empty policy name", stack)
		}
		f, ok := r[name]
		if !ok {
			return nil, fmt.Errorf("stack %q: unknown policy %q (known: %s)", stack, name, strings.Join(r.Names(), ", "))
		}
		if slices.Contains(st.names, name) {
			return nil, fmt.Errorf("stack %q: policy %q listed twice", stack, name)
		}
		hp := h
		hp.Log = h.Log.With().Str("policy", name).Logger()
		p, err := f(ctx, hp)
		if err != nil {
			return nil, fmt.Errorf("stack %q: build policy %q: %w", stack, name, err)
		}
		st.add(name, p)
	}
	return st, nil
}

// BuildStacks builds each of stacks (as ParseStacks returns them) with h,
// in order: one stack per simulation or replay run.
func (r Registry) BuildStacks(ctx context.Context, stacks []string, h Handle) ([]*Stack, error) {
	out := make([]*Stack, 0, len(stacks))
	for _, s := range stacks {
		st, err := r.Build(ctx, s, h)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Stack is an ordered composition of plugins with their extension points
// sorted out once.
type Stack struct {
	name        string
	names       []string
	Plugins     []Plugin
	Observers   []Observer
	Speculators []Speculator
	Gates       []SpeculationGate
	Placers     []Placer
	Assigners   []Assigner
	Shapers     []Shaper
	Binders     []Binder
	Flushers    []Flusher
}

// NewStack composes already built plugins (for tests and embedding).
func NewStack(plugins ...Plugin) *Stack {
	st := &Stack{}
	var names []string
	for _, p := range plugins {
		st.add(p.Name(), p)
		names = append(names, p.Name())
	}
	st.name = strings.Join(names, "+")
	return st
}

func (s *Stack) add(name string, p Plugin) {
	s.names = append(s.names, name)
	s.Plugins = append(s.Plugins, p)
	if x, ok := p.(Observer); ok {
		s.Observers = append(s.Observers, x)
	}
	if x, ok := p.(Speculator); ok {
		s.Speculators = append(s.Speculators, x)
	}
	if x, ok := p.(SpeculationGate); ok {
		s.Gates = append(s.Gates, x)
	}
	if x, ok := p.(Placer); ok {
		s.Placers = append(s.Placers, x)
	}
	if x, ok := p.(Assigner); ok {
		s.Assigners = append(s.Assigners, x)
	}
	if x, ok := p.(Shaper); ok {
		s.Shapers = append(s.Shapers, x)
	}
	if x, ok := p.(Binder); ok {
		s.Binders = append(s.Binders, x)
	}
	if x, ok := p.(Flusher); ok {
		s.Flushers = append(s.Flushers, x)
	}
}

// Name is the stack as written ("a+b+c").
func (s *Stack) Name() string { return s.name }

// Names lists the policies in order.
func (s *Stack) Names() []string { return s.names }
