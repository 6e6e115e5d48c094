package claim

// The claim statuses of the ledger, in the order a claim usually moves
// through them.
const (
	StatusProvisional = "PROVISIONAL"
	StatusPromoted    = "PROMOTED"
	StatusVerified    = "VERIFIED"
	StatusDisputed    = "DISPUTED"
	StatusKilled      = "KILLED"
)

// The claim types, from the weakest statement to the strongest.
const (
	TypeDescriptive = "descriptive"
	TypeCorrelative = "correlative"
	TypePredictive  = "predictive"
	TypeCausal      = "causal"
)

// The reasons a claim can be killed for.
const (
	KillInsufficientEvidence = "INSUFFICIENT_EVIDENCE"
	KillConfounded           = "CONFOUNDED"
	KillArtifact             = "ARTIFACT"
	KillLogicallyFalse       = "LOGICALLY_FALSE"
	KillPremature            = "PREMATURE"
)

// MaxTier is the highest promotion tier; a claim with no known type is
// treated as this tier, so leaving the type out never makes promotion easier.
const MaxTier = 3

var statuses = []string{StatusProvisional, StatusPromoted, StatusVerified, StatusDisputed, StatusKilled}

var types = []string{TypeDescriptive, TypeCorrelative, TypePredictive, TypeCausal}

var killReasons = []string{KillInsufficientEvidence, KillConfounded, KillArtifact, KillLogicallyFalse, KillPremature}

// DefaultPromotionGates lists, per tier, the gates whose PASS must be recorded
// for a claim before it may become PROMOTED or VERIFIED. Every claim needs its
// reported numbers to match their source (DQ4) and its execution to match the
// design (DC0); a correlative claim also needs clean features (DQ1); a
// predictive one a model that beats its baseline (DQ2); a causal one
// plausible calibration as well (DQ3). A domain config may pass its own table
// to RequiredGates.
var DefaultPromotionGates = map[int][]string{
	0: {"DQ4", "DC0"},
	1: {"DQ4", "DC0", "DQ1"},
	2: {"DQ4", "DC0", "DQ1", "DQ2"},
	3: {"DQ4", "DC0", "DQ1", "DQ2", "DQ3"},
}

// DefaultTier is the tier a claim of type typ gets when the ledger names no
// tier: descriptive 0, correlative 1, predictive 2, causal 3, and MaxTier for
// an empty or unknown type.
func DefaultTier(typ string) int {
	switch typ {
	case TypeDescriptive:
		return 0
	case TypeCorrelative:
		return 1
	case TypePredictive:
		return 2
	}
	return MaxTier
}

// minTier is the lowest tier a claim of type typ may be given; an unknown
// type sets no floor because it already defaults to MaxTier.
func minTier(typ string) int {
	for _, t := range types {
		if t == typ {
			return DefaultTier(typ)
		}
	}
	return 0
}

// EffectiveTier is the tier that decides c's gates: its Tier clamped to
// 0..MaxTier, but never below the default of its type, so writing `tier: 0`
// on a causal claim does not skip DQ1–DQ3.
func EffectiveTier(c Claim) int {
	t := c.Tier
	if t < 0 {
		t = 0
	}
	if t > MaxTier {
		t = MaxTier
	}
	if m := minTier(c.Type); t < m {
		t = m
	}
	return t
}

// RequiredGates returns the gates c needs before promotion, from table (nil
// means DefaultPromotionGates). When table has no row for c's tier, the
// nearest higher tier's row is used, else the nearest lower one, so a partial
// domain table errs on the strict side. The result is a fresh slice in the
// table's order.
func RequiredGates(c Claim, table map[int][]string) []string {
	if table == nil {
		table = DefaultPromotionGates
	}
	t := EffectiveTier(c)
	gates, ok := table[t]
	if !ok {
		above, below := -1, -1
		for k := range table {
			if k > t && (above < 0 || k < above) {
				above = k
			}
			if k < t && k > below {
				below = k
			}
		}
		switch {
		case above >= 0:
			gates = table[above]
		case below >= 0:
			gates = table[below]
		default:
			return nil
		}
	}
	return append([]string(nil), gates...)
}

// MissingSalvage reports whether c breaks the Salvagente rule: a claim killed
// for insufficient evidence, confounding or prematurity may still hold a
// useful question, so it must name the serendipity seed that keeps it
// (salvaged-seed). Artifacts and logically false claims need no seed.
func MissingSalvage(c Claim) bool {
	if c.Status != StatusKilled || c.SalvagedSeed != "" {
		return false
	}
	switch c.KillReason {
	case KillInsufficientEvidence, KillConfounded, KillPremature:
		return true
	}
	return false
}
