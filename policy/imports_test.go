package policy_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPoliciesImportNoTransport enforces the house rule that policies read
// state and return decisions: no policy package may depend, even
// transitively, on Kafka, HDFS, HTTP or storage code.
func TestPoliciesImportNoTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go tool")
	}
	out, err := exec.Command("go", "list", "-deps", "-test=false", "github.com/rmsidecar/rmsidecar/policy/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{"github.com/IBM/sarama", "github.com/twmb/franz-go", "github.com/colinmarc/hdfs",
		"net/http", "go.etcd.io/bbolt", "github.com/rmsidecar/rmsidecar/events/kafka",
		"github.com/rmsidecar/rmsidecar/yarnclient", "github.com/rmsidecar/rmsidecar/hdfslocality"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("a policy package depends on %s", dep)
			}
		}
	}
}
