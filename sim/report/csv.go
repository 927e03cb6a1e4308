package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// runsCSVHeader: one row per run; the names follow results.json.
var runsCSVHeader = []string{
	"policy", "makespan_s", "rel_makespan", "mean_jct_s", "p50_jct_s", "p95_jct_s",
	"locality_node", "locality_rack", "locality_off",
	"spec_launched", "spec_won", "spec_wasted_s",
	"cross_rack_shuffle_bytes", "utilization", "jain", "energy_kwh",
	"jobs", "events", "killed",
}

// WriteRunsCSV writes one row per run. rel_makespan is the makespan over
// the baseline's (stock YARN, else the first run); empty when undefined.
func WriteRunsCSV(w io.Writer, res Results) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(runsCSVHeader); err != nil {
		return fmt.Errorf("write runs csv: %w", err)
	}
	bi := baseline(res)
	for _, r := range res.Runs {
		rel := ""
		if v, ok := relMakespan(r, res.Runs[bi]); ok {
			rel = num(v)
		}
		rec := []string{
			r.Policy, num(r.MakespanS), rel, num(r.MeanJCTS), num(r.P50JCTS), num(r.P95JCTS),
			num(r.Locality.Node), num(r.Locality.Rack), num(r.Locality.Off),
			strconv.Itoa(r.Spec.Launched), strconv.Itoa(r.Spec.Won), num(r.Spec.WastedS),
			strconv.FormatInt(r.CrossRackShuffleBytes, 10), num(r.Utilization), num(r.Jain), num(r.EnergyKWh),
			strconv.Itoa(len(r.Jobs)), strconv.FormatInt(r.Events, 10), strconv.Itoa(r.Killed),
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write runs csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write runs csv: %w", err)
	}
	return nil
}

var jobsCSVHeader = []string{"policy", "job", "type", "submit_s", "finish_s", "jct_s", "maps", "reduces"}

// WriteJobsCSV writes one row per job per run; jct_s is empty for a job
// that did not finish.
func WriteJobsCSV(w io.Writer, res Results) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(jobsCSVHeader); err != nil {
		return fmt.Errorf("write jobs csv: %w", err)
	}
	for _, r := range res.Runs {
		for _, j := range r.Jobs {
			jct := ""
			if j.FinishS >= j.SubmitS && j.FinishS > 0 {
				jct = num(j.FinishS - j.SubmitS)
			}
			rec := []string{r.Policy, j.Name, j.Type, num(j.SubmitS), num(j.FinishS), jct, strconv.Itoa(j.Maps), strconv.Itoa(j.Reduces)}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("write jobs csv: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write jobs csv: %w", err)
	}
	return nil
}

// num is the shortest decimal that reads back as v (no exponent for the
// magnitudes a simulation produces), so CSV loses nothing.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
