//go:build cluster

package clustertest

import (
	"bufio"
	"encoding/xml"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// TestAttachGuide runs docs/attach.md on the harness: its configuration file and every
// `rmsidecar` command, the placeholders replaced by the harness's addresses. One-shot
// commands must exit 0; long-running ones must become ready (/readyz 200) and stop cleanly.
// The XML snippets must be well-formed and name only plug-in keys the jar defines.
func TestAttachGuide(t *testing.T) {
	c := loadCluster(t)
	guide, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "attach.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sidecarAddr, bridgeAddr := freePort(t), freePort(t)
	cfgPath := filepath.Join(dir, "rmsidecar.yaml")
	subst := strings.NewReplacer(
		"http://RM_HOST:8088", c.RMWeb,
		"BROKER1:9092", c.KafkaBootstrap,
		"/etc/hadoop/conf", c.ConfDir,
		"/etc/rmsidecar/rmsidecar.yaml", cfgPath,
		"/var/lib/rmsidecar/", dir+"/",
		"0.0.0.0:9464", sidecarAddr,
		"127.0.0.1:9465", bridgeAddr,
		"rmsidecar-snapshot.jsonl", filepath.Join(dir, "snapshot.jsonl"),
	)

	// Step 2: the topics, through the admin API.
	admin, err := sarama.NewClusterAdmin([]string{c.KafkaBootstrap}, kafkaConfig())
	if err != nil {
		t.Fatal(err)
	}
	for topic, parts := range map[string]int32{"rmsidecar.events": 4, "rmsidecar.nodes": 1, "rmsidecar.hints": 4, "rmsidecar.events.dlq": 1} {
		err := admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: parts, ReplicationFactor: 1}, false)
		if err != nil && !errors.Is(err, sarama.ErrTopicAlreadyExists) {
			t.Fatalf("create %s: %v", topic, err)
		}
	}
	admin.Close()

	// Step 4: the configuration file.
	blocks := fencedBlocks(string(guide))
	var config string
	for _, b := range blocks {
		if b.lang == "yaml" && b.marker == "attach:config" {
			config = b.body
		}
	}
	if config == "" {
		t.Fatal("docs/attach.md has no ```yaml block after <!-- attach:config -->")
	}
	if err := os.WriteFile(cfgPath, []byte(subst.Replace(config)), 0o600); err != nil {
		t.Fatal(err)
	}

	// The XML snippets.
	keys, err := os.ReadFile(filepath.Join(repoRoot(t), "yarn-plugin", "src", "main", "java", "org", "rmsidecar", "yarn", "RmSidecarConfig.java"))
	if err != nil {
		t.Fatal(err)
	}
	xmlBlocks := 0
	for _, b := range blocks {
		if b.lang != "xml" {
			continue
		}
		xmlBlocks++
		var conf struct {
			Props []struct {
				Name  string `xml:"name"`
				Value string `xml:"value"`
			} `xml:"property"`
		}
		if err := xml.Unmarshal([]byte("<configuration>"+b.body+"</configuration>"), &conf); err != nil {
			t.Errorf("xml block at line %d: %v", b.line, err)
			continue
		}
		for _, p := range conf.Props {
			// RmSidecarConfig writes its keys as PREFIX + "sidecar.url" (PREFIX "rmsidecar.").
			if suffix, ok := strings.CutPrefix(p.Name, "rmsidecar."); ok && !strings.Contains(string(keys), `PREFIX + "`+suffix+`"`) {
				t.Errorf("xml block at line %d: %s is not a key of RmSidecarConfig", b.line, p.Name)
			}
			if strings.HasSuffix(p.Name, ".class") || strings.HasSuffix(p.Name, ".processors") {
				cls := filepath.Join(repoRoot(t), "yarn-plugin", "src", "main", "java", strings.ReplaceAll(p.Value, ".", "/")+".java")
				if _, err := os.Stat(cls); err != nil {
					t.Errorf("xml block at line %d: %s = %s: no such class in yarn-plugin", b.line, p.Name, p.Value)
				}
			}
		}
	}
	if xmlBlocks < 2 {
		t.Errorf("%d xml blocks, want the yarn-site and mapred-site snippets", xmlBlocks)
	}

	// Every rmsidecar command.
	ran := 0
	for _, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		for _, line := range strings.Split(b.body, "\n") {
			line, _, _ = strings.Cut(line, "#")
			line = strings.TrimSpace(subst.Replace(line))
			if !strings.HasPrefix(line, "rmsidecar ") {
				continue
			}
			ran++
			runGuideCommand(t, line, sidecarAddr, bridgeAddr)
		}
	}
	if ran < 4 {
		t.Errorf("ran %d rmsidecar commands from the guide, want at least 4", ran)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "snapshot.jsonl")); err != nil || !strings.Contains(string(b), `"node.registered"`) {
		t.Errorf("step 3's snapshot has no node.registered (%v)", err)
	}
}

// runGuideCommand runs one command line of the guide ("rmsidecar ARGS [> FILE]").
func runGuideCommand(t *testing.T, line, sidecarAddr, bridgeAddr string) {
	t.Helper()
	cmdline, outFile, _ := strings.Cut(line, ">")
	args := strings.Fields(cmdline)[1:]
	oneShot := slices.Contains(args, "--once")
	if oneShot {
		cmd := exec.Command(sidecarBinary(t), args...)
		cmd.Env = childEnv()
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if f := strings.TrimSpace(outFile); f != "" {
			out, err := os.Create(f)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd.Stdout = out
		}
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %v\n%s", line, err, tail(stderr.String(), 20))
		}
		t.Logf("ran: %s", line)
		return
	}
	ready := "http://" + sidecarAddr + "/readyz"
	if args[0] == "bridge" {
		ready = "http://" + bridgeAddr + "/readyz"
	}
	p := startRMSidecar(t, "guide-"+args[0], args...)
	eventually(t, 2*time.Minute, 500*time.Millisecond, line+": ready", func() (bool, string) {
		if p.exited() {
			t.Fatalf("%s exited:\n%s", line, tail(p.log(), 20))
		}
		resp, err := http.Get(ready)
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})
	if err := p.stop(30 * time.Second); err != nil {
		t.Errorf("%s: %v", line, err)
	}
	t.Logf("ran until ready and stopped: %s", line)
}

type fencedBlock struct {
	lang, body, marker string
	line               int
}

// fencedBlocks returns the ``` blocks of a Markdown text with their language and the
// <!-- marker --> comment right before them, if any.
func fencedBlocks(md string) []fencedBlock {
	var out []fencedBlock
	var cur *fencedBlock
	var body strings.Builder
	marker := ""
	comment := regexp.MustCompile(`^<!--\s*(\S+)\s*-->$`)
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fencedBlock{lang: strings.TrimPrefix(line, "```"), marker: marker, line: n}
			body.Reset()
		case cur != nil && strings.HasPrefix(line, "```"):
			cur.body = body.String()
			out = append(out, *cur)
			cur, marker = nil, ""
		case cur != nil:
			body.WriteString(line + "\n")
		default:
			if m := comment.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				marker = m[1]
			} else if strings.TrimSpace(line) != "" {
				marker = ""
			}
		}
	}
	return out
}
