// Package recall holds vibe's memory retrieval: a safe FTS5 query built from
// free text, BM25 and vector KNN fused by reciprocal rank, freshness and
// trust weighting, near-duplicate collapsing, conflict detection when a
// memory is added, JSONL import, and the retrieval set that measures it. It
// reaches SQL only through internal/store and vectors only through the
// Vectors interface (the embed worker's socket client plugs in there); it
// must not import hugot, cobra or any hook handler.
//
// # Ranking
//
// Search takes the best Candidates FTS5 hits (BM25) and, when a Vectors
// client answers, the best Candidates KNN hits (cosine). Each list's raw
// relevance is first multiplied by freshness and trust,
//
//	weight = (1 − FreshnessWeight·(1 − 0.5^(age/halfLife(kind)))) · (0.5 + 0.5·trust)
//
// each list is re-ranked by it (ties by id), and the two rankings are fused
// by reciprocal rank (RRF, Cormack et al. 2009):
//
//	score(d) = 1/(RRFK + rank_fts(d)) + w · 1/(RRFK + rank_vec(d)),  RRFK = 60
//
// k = 60 is the constant of the original paper: it flattens the head of
// each list so that one list's first place cannot outvote agreement between
// the lists. That flatness is also why freshness and trust act on BM25 and
// cosine and not on the fused score: the first place of an RRF list scores
// only 1.15 times the tenth, so any multiplier with a useful range
// outvotes relevance there. Measured on testdata/retrieval (lexical
// recall@5): no decay 0.900; decay of 15% on the fused score 0.833; decay
// of 30% on BM25, as shipped, 0.890.
//
// Half-lives by kind: action 14 days, narrative 30, gate_failure 60,
// decision 90, seed 90, claim_event 120, note 180, other kinds 90. Age can
// take at most FreshnessWeight (30%) of a memory's relevance, and trust at
// most half of it, so an old or unverified memory that is the only good
// match still shows. The Sylk seed instead decays linearly to a floor
// (history 1 − 0.8·days/180, floor 0.2; academic 1 − 0.7·days/365, floor
// 0.3), adds similarity, trust and freshness with weights (0.35, 0.25,
// 0.25) and scores superseded facts 0.1. Ours is multiplicative, so an
// irrelevant memory never rises on freshness alone; it decays per kind
// rather than per source; and superseding is not inferred: contradictions
// are flagged (Hit.Conflict), never hidden.
//
// The vector weight w is the confidence that this query's vector ranks carry
// signal. A model with random weights (the test model) or an unrelated model
// yields vector ranks that are noise; fused at full weight they would push
// good lexical hits out of the top k. w is measured per query, with no
// model-specific constant: of the first ten vector hits (in the model's own
// order), how many are also lexical candidates, corrected for chance (with
// L lexical candidates in a pool of N memories, m random vector hits share
// m·L/N of them on average):
//
//	w = (overlap − m·L/N) / (m − m·L/N), clamped to [0, 1],
//
// and w is 0 unless an overlap that large has a chance below
// VectorSignificance (1e-5, binomial tail; 0.001 let a random-weight model, whose vectors still echo shared tokens, reorder 13 of the 206 retrieval queries for the worse). Random vectors overlap at
// chance, so w is 0 and the lexical order stands (Result.Note says so); a working model agrees with BM25 on the clear
// cases, earns weight, and then lifts paraphrases BM25 ranks low. With no
// lexical candidate at all there is nothing to protect and w is 1. In a
// project so small that nearly every memory is a lexical candidate,
// agreement proves nothing and w is 0.
//
// Near-duplicates are collapsed after scoring: a hit whose normalised text
// equals a better hit's, or whose word-bigram shingles have Jaccard ≥ 0.9
// with a better hit's, is dropped. Ties in score are broken by id, so the
// same database and query always give the same list.
//
// # Lexical search
//
// MatchQuery turns free text into quoted words joined by OR, so user text
// can never inject FTS5 syntax. On a large store an OR of everyday words
// matches much of it and BM25 costs about a microsecond per match, so each
// word's matches are counted first (capped) and the rarest words whose
// matches add up to MatchBudget are kept (see TermProbe); when every word is
// common, only the newest RecentWindow memories are searched and the Note
// says so. Measured: three hits over 50,000 memories in 2 to 4 ms on an
// open database (BenchmarkSearch50k, disclosure's BenchmarkPromptContext50k).
//
// # Conflicts
//
// A new memory is compared with the memories about the same thing: cosine
// ≥ 0.85 when a Vectors client answers (vec_memories holds unit vectors, so
// cosine is 1 − d²/2 of the L2 distance), and always Jaccard ≥ 0.6 over
// content words, since the newest memories have no vector yet. Stop words
// and polarity cues are left out of the Jaccard, so "passed" vs "failed"
// does not itself lower the similarity. AddMemory finds word neighbours
// through FTS5 (the memories holding the text's three rarest words);
// Import loads the project's words into memory once and finds the
// neighbours that state the opposite outcome there (wordIndex.opposing, on
// each text's polarity words), walking at most maxNearScan of the newest
// postings of each rare word: the work per line is bounded, so an import
// is linear in its lines however many similar memories the store holds
// (1,000 repetitive lines into 83,000 similar memories: 2.6 s, where 10,000
// took 99 s before the bound).
//
// Of the neighbours, the nearest that states the opposite outcome is a
// conflict, recorded on both memories (memories.conflicts_with) and shown
// on recall hits (Hit.Conflict). Opposite counts only the cue words the
// two texts do not share: a negation ("not", "no", "never", "without",
// "cannot", "non", "n't") on one side flips the polarity, by parity; an
// antonym pair across the sides (passed/failed, increase/decrease,
// significant/insignificant, VERIFIED/KILLED, supported/refuted,
// enriched/depleted, …) is an opposition of outcome; the texts contradict
// when exactly one of the two holds, so "did not pass" and "failed" agree.
// This is myBrAIn's rule (a near vector that states the opposite) with the
// polarity test made explicit. It misses contradictions carried by numbers
// alone ("AUC 0.91" vs "AUC 0.62") and by negations that move between two
// clauses with the same words.
package recall
