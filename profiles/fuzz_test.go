package profiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzParseDocument: an import document either parses into records that
// read back the same once exported again, and import into a store, or
// fails with a *ValidationError naming the record and field; never a panic.
func FuzzParseDocument(f *testing.F) {
	f.Add([]byte(`{"v":1,"records":[
{"ns":"erul","key":"n1","schema":2,"rev":2,"value":{"m1":3}},
{"ns":"learning","key":"nb/counts","schema":1,"rev":3,"value":{"bad":1,"good":3}},
{"ns":"samr","key":"sort","schema":1,"rev":1,"value":{"M1":0.5,"M2":0,"R":null}}
]}
`))
	f.Add([]byte(`{"v":1,"records":[]}`))
	f.Add([]byte(`{"v":1,"records":[{"ns":"a","key":"k","schema":1,"value":[1, 2 ,3]},{"ns":"a","key":"k","schema":1,"value":1}]}`))
	f.Add([]byte(`{"v":2,"records":[]}`))
	f.Add([]byte(`{"v":1,"records":[{"ns":"a","key":"k","schema":0,"value":1}]}`))
	f.Add([]byte(`{"v":1,"records":[{"ns":"a","key":"k","schema":1,"value":null}]} {}`))
	f.Add([]byte(`{"v":1,"records":[{"ns":1}]}`))
	f.Add([]byte(`{"v":1,"rec`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ParseDocument(bytes.NewReader(data))
		if err != nil {
			ve, ok := errors.AsType[*ValidationError](err)
			if !ok || ve.Field == "" || ve.Msg == "" || ve.Index < -1 {
				t.Fatalf("error %#v is not a *ValidationError naming a field", err)
			}
			return
		}
		var doc bytes.Buffer
		doc.WriteString(`{"v":1,"records":[`)
		for i, r := range recs {
			if i > 0 {
				doc.WriteByte(',')
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("record %d does not encode: %v", i, err)
			}
			doc.Write(b)
		}
		doc.WriteString("]}")
		again, err := ParseDocument(bytes.NewReader(doc.Bytes()))
		if err != nil || !reflect.DeepEqual(again, recs) {
			t.Fatalf("re-exported document reads back %v, %v; want %v", again, err, recs)
		}
		db := NewMemory()
		defer db.Close()
		if err := db.Import(context.Background(), bytes.NewReader(doc.Bytes())); err != nil {
			t.Fatalf("a document that parses does not import: %v", err)
		}
	})
}
