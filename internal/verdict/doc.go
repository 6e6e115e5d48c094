// Package verdict holds the one decision envelope every vibe check returns:
// which check ran, its result (PASS, WARN, BLOCK, HARD_BLOCK), how severe it
// is, the evidence behind it, what to do next, and a decision hash that makes
// the same decision on the same input recognisable. It does no I/O and imports
// only the standard library; turning verdicts into hook replies is hookrun's
// job, storing them is store's.
package verdict
