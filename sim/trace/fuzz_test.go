package trace

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseSWIM: any input either parses into jobs that keep SWIM's floors
// or fails with a *ParseError; it never panics.
func FuzzParseSWIM(f *testing.F) {
	f.Add(swimHead)
	f.Add("job0\t1\t1\t1\t1\n")
	f.Add("# c\r\n\r\nj\t1e3\t0\t9223372036854775807\t0\t0\n")
	f.Add(swimPathsHead)
	f.Add("j\t1\t1\t1\t1\t1\t\tx\n")
	f.Fuzz(func(t *testing.T, in string) {
		jobs, err := ParseSWIM(strings.NewReader(in), SWIMOptions{Nodes: 3000})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for _, j := range jobs {
			if j.Maps < 1 || j.Reduces < 1 || j.InputBytes < 57_303_500 || j.ShuffleBytes < 1024 || j.SubmitS < 0 {
				t.Fatalf("job %+v breaks the floors", j)
			}
			if j.InputPath != "" && CheckInputPath(j.InputPath) != nil {
				t.Fatalf("job %+v has an input path the simulator cannot use", j)
			}
		}
	})
}

// FuzzParseRumen: any input parses or fails with a *ParseError, never panics.
func FuzzParseRumen(f *testing.F) {
	f.Add(rumenJobJSON)
	f.Add("[" + rumenEarlyJSON + "]")
	f.Add(`{"jobID":"j","submitTime":1}{"jobID":"k","submitTime":0}`)
	f.Fuzz(func(t *testing.T, in string) {
		jobs, err := ParseRumen(strings.NewReader(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for i, j := range jobs {
			if i > 0 && j.SubmitS < jobs[i-1].SubmitS {
				t.Fatalf("jobs out of submit order: %v", jobs)
			}
			if len(j.Tasks) != j.Maps+j.Reduces && len(j.Tasks) > 0 {
				t.Fatalf("job %s: %d tasks for %d maps + %d reduces", j.Name, len(j.Tasks), j.Maps, j.Reduces)
			}
		}
	})
}

// FuzzParseSLS: any input parses into jobs in submit order, each with as
// many tasks as maps plus reduces, or fails with a *ParseError; it never panics.
func FuzzParseSLS(f *testing.F) {
	f.Add(slsJobs)
	f.Add(`[{"job.id":"j","job.start.ms":"7","job.tasks":[{"container.host":"/r/h","duration.ms":5,"container.priority":20}]}]`)
	f.Add(`{"job.id":"j","job.tasks":[{"container.host":"h","container.start.ms":10,"container.end.ms":5}]}`)
	f.Add(`{"job.id":"j","job.tasks":[{"container.host":"h","duration.ms":1,"count":-3,"container.type":"shuffle"}]}`)
	f.Add(`{"job.id":1}{}`)
	f.Add(`{"num.nodes":3,"num.racks":2}{"job.count":"2","job.tasks":[{"container.duration.ms":"4","count":2}]}`)
	f.Add(`{"yarn.sls.am.type":"dag","job.tasks":[{"duration.ms":null,"container.end.ms":9,"container.start.ms":1}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		jobs, err := ParseSLS(strings.NewReader(in), SLSOptions{})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for i, j := range jobs {
			if i > 0 && j.SubmitS < jobs[i-1].SubmitS {
				t.Fatalf("jobs out of submit order: %v", jobs)
			}
			if j.SubmitS < 0 {
				t.Fatalf("job %s submitted at %v, before the earliest", j.Name, j.SubmitS)
			}
			if len(j.Tasks) != j.Maps+j.Reduces {
				t.Fatalf("job %s: %d tasks for %d maps + %d reduces", j.Name, len(j.Tasks), j.Maps, j.Reduces)
			}
		}
	})
}
