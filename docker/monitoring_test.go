package docker

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// metricName matches the project's metric names in an expression.
var metricName = regexp.MustCompile(`\brmsidecar_[a-z0-9_]+`)

// exportedMetrics are the metric names the Go code registers: every
// "rmsidecar_..." string literal outside tests.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	lit := regexp.MustCompile(`"(rmsidecar_[a-z0-9_]+)"`)
	out := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "target") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found only %d metric names in the code: %v", len(out), out)
	}
	return out
}

// checkExpr checks a PromQL expression's brackets and that every project
// metric it names is one the code exports (a histogram's _bucket, _sum and
// _count included).
func checkExpr(t *testing.T, where, expr string, exported map[string]bool) {
	t.Helper()
	depth := map[rune]int{}
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, r := range expr {
		switch r {
		case '(', '[', '{':
			depth[r]++
		case ')', ']', '}':
			depth[pairs[r]]--
			if depth[pairs[r]] < 0 {
				t.Errorf("%s: unbalanced %q in %q", where, r, expr)
				return
			}
		}
	}
	for open, n := range depth {
		if n != 0 {
			t.Errorf("%s: unclosed %q in %q", where, open, expr)
		}
	}
	for _, m := range metricName.FindAllString(expr, -1) {
		base := m
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(m, suffix); ok && exported[b] {
				base = b
			}
		}
		if !exported[base] {
			t.Errorf("%s: metric %s is not exported by the code", where, m)
		}
	}
}

func TestAlertRules(t *testing.T) {
	b, err := os.ReadFile("prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("alerts.yml: %v", err)
	}
	exported := exportedMetrics(t)
	seen := map[string]bool{}
	var covered []string
	for _, g := range f.Groups {
		if g.Name == "" || len(g.Rules) == 0 {
			t.Errorf("group %q: a name and rules are required", g.Name)
		}
		for _, r := range g.Rules {
			where := "alert " + r.Alert
			if r.Alert == "" || seen[r.Alert] {
				t.Errorf("%s: empty or duplicate alert name", where)
			}
			seen[r.Alert] = true
			if r.Expr == "" {
				t.Errorf("%s: no expr", where)
			}
			if r.For != "" && !regexp.MustCompile(`^(\d+[smhdwy])+$`).MatchString(r.For) {
				t.Errorf("%s: for %q is not a Prometheus duration", where, r.For)
			}
			if !slices.Contains([]string{"critical", "warning", "info"}, r.Labels["severity"]) {
				t.Errorf("%s: severity %q", where, r.Labels["severity"])
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: summary and description are required", where)
			}
			checkExpr(t, where, r.Expr, exported)
			covered = append(covered, metricName.FindAllString(r.Expr, -1)...)
		}
	}
	// What the issue asks alerts for: lag, dead letters, actuation failures, RM unreachable.
	for _, want := range []string{"rmsidecar_consumer_lag", "rmsidecar_events_rejected_total",
		"rmsidecar_actuation_errors_total", "rmsidecar_bridge_rm_up"} {
		if !slices.Contains(covered, want) {
			t.Errorf("no alert on %s", want)
		}
	}
}

func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("grafana/dashboards/rmsidecar.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("rmsidecar.json: %v", err)
	}
	if d.UID == "" || d.Title == "" || len(d.Panels) < 8 {
		t.Fatalf("dashboard uid %q title %q, %d panels", d.UID, d.Title, len(d.Panels))
	}
	exported := exportedMetrics(t)
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkExpr(t, "panel "+p.Title, q.Expr, exported)
		}
	}
}

// TestPrometheusScrapesTheServices: the scrape targets are compose services
// on the ports they listen on, and the rule file is where it is mounted.
func TestPrometheusScrapesTheServices(t *testing.T) {
	b, err := os.ReadFile("prometheus/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Global        map[string]string `yaml:"global"`
		RuleFiles     []string          `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("prometheus.yml: %v", err)
	}
	c := loadCompose(t)
	if !slices.Contains(c.Services["prometheus"].Volumes, "./prometheus:/etc/prometheus:ro") {
		t.Fatalf("prometheus volumes %v", c.Services["prometheus"].Volumes)
	}
	for _, rf := range p.RuleFiles {
		if _, err := os.Stat(filepath.Join("prometheus", strings.TrimPrefix(rf, "/etc/prometheus/"))); err != nil {
			t.Errorf("rule file %s: %v", rf, err)
		}
	}
	listens := map[string]string{"sidecar": "9464", "bridge": "9465"}
	targets := 0
	for _, sc := range p.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			for _, tg := range st.Targets {
				targets++
				host, port, _ := strings.Cut(tg, ":")
				if _, ok := c.Services[host]; !ok || listens[host] != port {
					t.Errorf("job %s: target %s is not a compose service on its port", sc.JobName, tg)
				}
			}
		}
	}
	if targets != 2 {
		t.Errorf("%d scrape targets, want the sidecar and the bridge", targets)
	}
	if !strings.Contains(strings.Join(c.Services["bridge"].Command, " "), "--http 0.0.0.0:9465") {
		t.Error("the bridge does not serve its metrics on 0.0.0.0:9465")
	}
}
