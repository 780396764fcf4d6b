package syntax

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestCalibrationTable checks that the confidences in calibration.go are
// the measured precisions of CALIBRATION.md: in a section that sets the
// confidences, each rule's confidence is its precision cut to two decimals
// (at most MaxCalibrated), every measured rule of the code has its row, and
// every table but the historical one shows the confidences of the code.
func TestCalibrationTable(t *testing.T) {
	src, err := os.ReadFile("CALIBRATION.md")
	if err != nil {
		t.Fatal(err)
	}
	sets, current := false, false
	seen := map[[2]string]bool{}
	for line := range strings.SplitSeq(string(src), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			sets = strings.Contains(h, "(sets the confidences)")
			current = sets || strings.Contains(h, "(check)")
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 6 || !strings.HasPrefix(cells[1], "syntax:") {
			continue
		}
		lang, reason := cells[0], cells[1]
		conf, err1 := strconv.ParseFloat(cells[2], 64)
		precision, err2 := strconv.ParseFloat(cells[4], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %q: %v %v", line, err1, err2)
		}
		if current && conf != RuleConfidence(lang, reason) {
			t.Errorf("%s %s: the table shows confidence %.2f, the code has %.2f", lang, reason, conf, RuleConfidence(lang, reason))
		}
		if !sets {
			continue
		}
		seen[[2]string{lang, reason}] = true
		if want := CalibratedConfidence(precision); RuleConfidence(lang, reason) != want || !Calibrated(lang, reason) {
			t.Errorf("%s %s: measured precision %.3f gives %.2f, the code has %.2f (calibrated: %v)",
				lang, reason, precision, want, RuleConfidence(lang, reason), Calibrated(lang, reason))
		}
	}
	for lang, rules := range calibrated {
		for reason := range rules {
			if !seen[[2]string{lang, reason}] {
				t.Errorf("%s %s has a calibrated confidence but no measured row", lang, reason)
			}
		}
	}
}
