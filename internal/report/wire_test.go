package report_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/report"
)

// fill sets every exported field of v, at every depth, to a value of its
// own that is not its zero: a field added to a type is filled too.
func fill(v reflect.Value, n *int) {
	*n++
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Unix(int64(*n)*1000, 0).UTC()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	default:
		panic(fmt.Sprintf("fill: a field of kind %s: teach fill it", v.Kind()))
	}
}

// filled returns a report with every field set.
func filled(t *testing.T) report.Report {
	t.Helper()
	var r report.Report
	n := 0
	fill(reflect.ValueOf(&r).Elem(), &n)
	return r
}

// diff names the first field path where got differs from want.
func diff(path string, want, got reflect.Value) string {
	if w, ok := want.Interface().(time.Time); ok {
		if g := got.Interface().(time.Time); !g.Equal(w) {
			return fmt.Sprintf("%s = %v, want %v", path, g, w)
		}
		return ""
	}
	switch want.Kind() {
	case reflect.Struct:
		for i := range want.NumField() {
			if d := diff(path+"."+want.Type().Field(i).Name, want.Field(i), got.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if want.Len() != got.Len() {
			return fmt.Sprintf("%s: %d elements, want %d", path, got.Len(), want.Len())
		}
		for i := range want.Len() {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), want.Index(i), got.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Pointer:
		if got.IsNil() != want.IsNil() {
			return path + ": nil on one side only"
		}
		if want.IsNil() {
			return ""
		}
		return diff(path, want.Elem(), got.Elem())
	}
	if !reflect.DeepEqual(want.Interface(), got.Interface()) {
		return fmt.Sprintf("%s = %v, want %v", path, got.Interface(), want.Interface())
	}
	return ""
}

// Every field of a report and of its mutants survives the wire format:
// dropping one from the encoding or the decoding fails here.
func TestWire_EveryFieldRoundTripsThroughJSON(t *testing.T) {
	want := filled(t)
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got report.Report
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if d := diff("Report", reflect.ValueOf(want), reflect.ValueOf(got)); d != "" {
		t.Error(d)
	}
}

// Every field survives the cache too: a run kept without its mutants,
// and each mutant on its own.
func TestWire_EveryFieldRoundTripsThroughTheCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	want := filled(t)
	if err := cache.StoreRun("key", &want); err != nil {
		t.Fatal(err)
	}
	got, ok := cache.LoadRun("key")
	if !ok {
		t.Fatal("LoadRun() found nothing after StoreRun()")
	}
	run := want
	run.Mutants, run.Cached = nil, false // kept apart, and never cached
	if d := diff("Report", reflect.ValueOf(run), reflect.ValueOf(*got)); d != "" {
		t.Error(d)
	}
	// Only a verdict that may be kept is kept: a confirmed kill.
	mutant := want.Mutants[0]
	mutant.Status, mutant.Partial, mutant.FlakyTests = report.Killed, false, nil
	if err := cache.StoreMutant("mutant", mutant); err != nil {
		t.Fatal(err)
	}
	m, ok := cache.LoadMutant("mutant")
	if !ok {
		t.Fatal("LoadMutant() found nothing after StoreMutant()")
	}
	if d := diff("Mutant", reflect.ValueOf(mutant), reflect.ValueOf(m)); d != "" {
		t.Error(d)
	}
}
