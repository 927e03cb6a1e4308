package config

import (
	"strings"
	"testing"
)

// TestEnvKeysUnambiguous: every known key has an environment form of its own
// (RMSIDECAR_KAFKA_BROKERS for kafka.brokers), so envKey, which ranges over
// the keys in map order, never has two to choose from, and each key's form
// leads back to it.
func TestEnvKeysUnambiguous(t *testing.T) {
	forms := map[string]string{}
	for k := range defaults() {
		form := strings.ReplaceAll(k, ".", "_")
		if other, ok := forms[form]; ok {
			t.Fatalf("keys %q and %q have the same environment form %s_%s", other, k, EnvPrefix, strings.ToUpper(form))
		}
		forms[form] = k
		if got := envKey(strings.ToUpper(form)); got != k {
			t.Errorf("envKey(%q) = %q, want %q", strings.ToUpper(form), got, k)
		}
	}
}
