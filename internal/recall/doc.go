// Package recall holds vibe's memory retrieval: a safe FTS5 query built from
// free text, BM25 ranking with vector KNN hits placed first only when they
// stand out of the model's own similarities, freshness and trust weighting, near-duplicate collapsing, conflict detection when a
// memory is added, and JSONL import; its tests measure it on a retrieval
// set (testdata/retrieval, retrievalset_test.go). It reaches SQL only
// through internal/store and vectors only through the Vectors interface
// (the embed worker's socket client plugs in there); it must not import
// hugot, cobra or any hook handler (only its benchmark loads the generated
// models, through internal/embed/hugotembed).
//
// # Ranking
//
// Search takes the best Candidates FTS5 hits (BM25) and, when a Vectors
// client answers, the best Candidates KNN hits (cosine). Each list's raw
// relevance is first multiplied by freshness and trust,
//
//	weight = (1 − FreshnessWeight·(1 − 0.5^(age/halfLife(kind)))) · (0.5 + 0.5·trust)
//
// and each list is re-ranked by it (ties by id). Without vectors the BM25
// order is the answer, and a hit's Score is its reciprocal rank,
// 1/(RRFK + rank), RRFK = 60 (Cormack et al. 2009's constant). Freshness
// and trust act on BM25 and cosine, not on that score: the first place
// scores only 1.15 times the tenth, so any multiplier with a useful range
// outvotes relevance there. Measured on testdata/retrieval (lexical
// recall@5): no decay 0.900; decay of 15% on the fused score 0.833; decay
// of 30% on BM25, as shipped, 0.890.
//
// Half-lives by kind: action 14 days, narrative and open_thread 30,
// gate_failure and failure 60, decision, seed and hypothesis 90,
// claim_event 120, note, pattern and insight 180. Age can
// take at most FreshnessWeight (30%) of a memory's relevance, and trust at
// most half of it, so an old or unverified memory that is the only good
// match still shows. The Sylk seed instead decays linearly to a floor
// (history 1 − 0.8·days/180, floor 0.2; academic 1 − 0.7·days/365, floor
// 0.3), adds similarity, trust and freshness with weights (0.35, 0.25,
// 0.25) and scores superseded facts 0.1. Ours is multiplicative, so an
// irrelevant memory never rises on freshness alone, and it decays per kind
// rather than per source. A superseded or disputing memory (see Conflicts)
// has its relevance multiplied by SupersededWeight (0.25) and, when the
// memory that outranks it is among the hits, is moved to just below it: a
// query that quotes its value matches its text best, and the statement
// that stands must still come first. It is never hidden, and it carries
// its pointer (Hit.SupersededBy, Hit.Disputes); a hit that stands over a
// less trusted memory that disputes it carries that one too
// (Hit.DisputedBy, Hit.Dispute), for the line that says so.
//
// # Vectors
//
// Vector hits count only where the model is sure: the largest group of
// its nearest hits (at most Limit of them) that stands out of the rest of
// its similarities for this query (standouts: a gap in the cosines that
// chance explains with probability at most StandoutSignificance, 1%,
// measured against the query's own spacing of cosines, so no constant per
// model). That group goes first, in BM25's order, then the members BM25
// did not match, in the model's; every other lexical candidate follows in
// BM25's order, and the vector hits outside the group change nothing.
// Result.Standouts says how many stood out, and the Note says when none
// did.
//
// The bound: the top k (k = Limit) holds the group and then BM25's order,
// so of BM25's top k at most |G \ L| leave it, one for each member of the
// group G that BM25 did not rank in its top k (L); a group inside L only
// reorders it. A query therefore loses at most |G \ L| relevant memories
// to vectors, and none when nothing stands out, which is what a model
// whose similarities carry nothing about this query gives in 99 queries
// in 100 (under the null the head of the list is the top of a sample whose
// normalised gaps are exponential: exactly so for an exponential tail,
// conservatively for the lighter tails of cosines). Measured on
// testdata/retrieval (256 queries, recall@5, k = 5): groups formed with
// trigram-count vectors in 43 queries, the fallback embedder 21, the
// potion and MiniLM shapes with random weights 18 and 3 (vectors of the
// generated test models, exact KNN), random vectors none; a member outside BM25's top 5 in 3, 3, 2, 0 and 0 of them, and
// none cost a relevant memory: lexical and all five 0.9056. A model that
// ranks the answering memories first at cosine 0.955 (the test's oracle)
// reaches 0.9961.
//
// This replaces reciprocal-rank fusion of the two lists with a weight for
// the vectors' agreement with BM25 (score = 1/(60 + rank_fts) +
// w·1/(60 + rank_vec)), which cost queries with every weak model
// (0.8978 to 0.9023): a model that echoes the query's words agrees with
// BM25 and so earned full weight, yet orders the echo by a cruder measure
// than BM25, and RRF's flat head let its first place lift BM25's seventh
// above BM25's second. What tells a model that knows from one that echoes
// is not its ranks, since both rank the lexical matches high, but how far
// its best hits stand above the rest. The price: a model whose knowledge
// does not stand out is not used. Trigram vectors with the answering
// memories lifted by 0.15 cosine gained 11 queries under RRF and gain 1
// here; lifted by 0.10, 0.20, 0.30 and 0.40 they gain 1, 4, 13 and 25,
// and lose none.
//
// With no lexical candidate there is nothing to protect, and the vector
// ranks are the order: for a recall somebody asked for (`vibe recall`).
// The prompt hook's recall, which nobody asked for, keeps the standout
// group there too (Query.StandoutsOnly), so a prompt with no word to
// search ("go", "yes") injects a memory only when the model singles it
// out, and otherwise nothing. So does any recall on the fallback
// embedder's vectors: they hash words, so with no lexical candidate its
// nearest memories are hash collisions, and a query of words no memory
// holds recalls nothing rather than every memory.
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
// # Conflicts and superseding
//
// A new memory is compared with the memories about the same thing: cosine
// ≥ 0.85 when a Vectors client answers (vec_memories holds unit vectors, so
// cosine is 1 − d²/2 of the L2 distance), and always Jaccard ≥ 0.6 over
// subject words, since the newest memories have no vector yet. Subject
// words are the content words without stop words, polarity cues and
// quantities; an identifier is one word ("C-12" is "c 12", "chromosome 2"
// and "batch 3" likewise, see subject), and two texts that name different
// things of one kind ("claim C-3" and "claim C-7") are about different
// subjects whatever else they share. AddMemory finds word neighbours
// through FTS5: the newest 50 memories holding any of the three rarest of
// the text's words (counted among its eight likeliest-rare words, since
// each count opens an index cursor), newest first, which FTS5 stops at the
// limit however common the words are. Import loads the project's words
// into memory once and finds the neighbours there (wordIndex.opposing),
// walking at most maxNearScan of the newest postings of each rare word:
// the work per line is bounded, so an import is linear in its lines
// however many similar memories the store holds (1,000 repetitive lines
// into 83,000 similar memories: 2.6 s, where 10,000 took 99 s before the
// bound).
//
// Of the neighbours, each that states the opposite outcome, or another
// value of a quantity, is a conflict: a link in memory_links, held on both
// memories, as many as there are (many to many). Of two linked memories
// trust, then recency, decides which stands (record.Outranks): the older
// (created_at, then id) is superseded by a newer one at least as trusted,
// and a newer, less trusted one disputes it, ranked down while the older
// stays current. A record reads where each link stands from the links (the
// store's memoryCols), and the row's superseded_by names what outranks it
// either way, so the order of insertion does not matter (an import of an
// older fact is superseded at once unless it is better sourced), and
// forgetting the one that stands restores the other or hands it to the
// next.
//
// Opposite outcome counts only the cue words the two texts do not share:
// a negation ("not", "no", "never", "without", "cannot", "non", "n't") on
// one side flips the polarity, by parity; an antonym pair across the
// sides (passed/failed, increase/decrease, significant/insignificant,
// VERIFIED/KILLED, supported/refuted, enriched/depleted, …) is an
// opposition of outcome; the texts contradict when exactly one of the two
// holds, so "did not pass" and "failed" agree. This is myBrAIn's rule (a
// near vector that states the opposite) with the polarity test made
// explicit. It misses negations that move between two clauses with the
// same words.
//
// Another value counts when both kinds state facts (not action, narrative
// or failure: two runs that took 40 s and 52 s are two events), the
// subject words reach NumericJaccard (0.75: "minimum depth per guide" and
// "… per sample" differ by one word in five and are two subjects), and
// each text has a value of one class the other lacks: "1% read threshold"
// and "0.1% read threshold", "lr 3e-4" and "lr 1e-3", "n=120" and "n=95",
// "500 ms" and "2 s". Values are compared in a base unit (a percentage as
// a fraction, ms as s, MB as bytes, …), so "1%" and "0.01", or "500 ms"
// and "0.5 s", agree; a text that only adds a value ("AUC 0.91 on 120
// sites" after "AUC 0.91") does not contradict. A number that names a
// thing (C-12, chromosome 2, a year, hg19) is no value.
//
// What the hooks write is stored unchecked (record.NewMemory.Checked): the
// search costs about 2 ms on a store of 10,000 (BenchmarkCheckPending10k),
// more than a hook may spend, so the worker's poll links those memories
// (CheckPending, 100 a poll) off the hook path, and spooled memories the
// same way once replayed.
package recall
