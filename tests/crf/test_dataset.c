/* Datasets from observation sequences: interning with grow, dropping unknown
 * observations and refusing unknown labels without grow, sequences staying
 * valid while buffers grow, the tagging buffer, Viterbi error counts, and a
 * large dictionary. */
#include "crftest.h"

static const char *labels_of[] = {"B-NP", "I-NP", "O", "B-VP"};

/* Sentence i: tokens w<(i+t)%50>, observation "w=<word>" (unigram), "B"
 * (bigram) and "cap" (both) on every third token. */
static void sentence(crfp_obsseq *os, size_t i, size_t T, const char **lab, int unknown)
{
    crfp_obsseq_reset(os, T);
    char buf[64];
    for (size_t t = 0; t < T; t++) {
        int n = snprintf(buf, sizeof buf, "w=%zu", (i + t) % 50);
        crfp_obsseq_push(os, t, CRFP_OBS_UNIGRAM, buf, (size_t)n);
        crfp_obsseq_push(os, t, CRFP_OBS_BIGRAM, "B", 1);
        if (t % 3 == 0)
            crfp_obsseq_push(os, t, CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM, "cap", 3);
        if (unknown)
            crfp_obsseq_push(os, t, CRFP_OBS_UNIGRAM, "never-seen", 10);
        lab[t] = labels_of[((i + t) % 50) % 4];
    }
}

static int has_obs(const crfp_crf *crf, const uint32_t *ids, uint32_t a, uint32_t b,
                   const char *name)
{
    for (uint32_t k = a; k < b; k++)
        if (strcmp(crfp_crf_obs(crf, ids[k], NULL), name) == 0)
            return 1;
    return 0;
}

int main(void)
{
    crfp_host *host = crfp_host_new();
    crfp_crf *crf = crfp_crf_new();
    crfp_dataset *ds = crfp_dataset_new();
    crfp_obsseq *os = crfp_obsseq_new();
    if (!host || !crf || !ds || !os)
        return 99;
    const char *lab[64];
    /* Enough sentences that every buffer is reallocated several times. */
    for (size_t i = 0; i < 3000; i++) {
        sentence(os, i, 1 + i % 40, lab, 0);
        CHECK(crfp_dataset_add(host, ds, crf, os, lab, 1) == CRFP_OK, "add: %s",
              crfp_errmsg(host));
    }
    CHECK(crfp_dataset_size(ds) == 3000, "size");
    CHECK(crfp_crf_nlabels(crf) == 4, "labels %u", crfp_crf_nlabels(crf));
    CHECK(crfp_crf_nobs(crf) == 52, "observations %u", crfp_crf_nobs(crf));
    size_t tokens = 0;
    for (size_t i = 0; i < 3000; i++) {
        const crfp_seq *s = crfp_dataset_get(ds, i);
        CHECK(s->T == 1 + i % 40, "T of %zu", i);
        tokens += s->T;
        for (uint32_t t = 0; t < s->T; t++) {
            char w[32];
            snprintf(w, sizeof w, "w=%zu", (i + t) % 50);
            CHECK(has_obs(crf, s->uobs, s->uoff[t], s->uoff[t + 1], w), "seq %zu tok %u", i, t);
            CHECK(has_obs(crf, s->bobs, s->boff[t], s->boff[t + 1], "B"), "B");
            CHECK(has_obs(crf, s->bobs, s->boff[t], s->boff[t + 1], "cap") == (t % 3 == 0),
                  "cap bigram");
            CHECK(!has_obs(crf, s->uobs, s->uoff[t], s->uoff[t + 1], "B"), "B not unigram");
            CHECK(strcmp(crfp_crf_label(crf, s->y[t]), labels_of[((i + t) % 50) % 4]) == 0,
                  "label");
        }
    }
    CHECK(crfp_dataset_tokens(ds) == tokens, "tokens");

    /* Occurrence counts (min-freq), against the sentences' definition:
     * w=k at every token with (i + t) % 50 == k, B (bigram) at every
     * token, cap (both kinds) at every third. */
    uint32_t nobs = crfp_crf_nobs(crf);
    uint64_t *cnt = calloc(2 * (size_t)nobs, sizeof *cnt), want_w[50] = {0}, ntok = 0, ncap = 0;
    CHECK(crfp_dataset_obs_counts(ds, nobs, cnt) == CRFP_OK, "counts");
    for (size_t i = 0; i < 3000; i++)
        for (size_t t = 0; t < 1 + i % 40; t++) {
            want_w[(i + t) % 50]++;
            ntok++;
            ncap += t % 3 == 0;
        }
    for (uint32_t k = 0; k < 50; k++) {
        char w[32];
        int n = snprintf(w, sizeof w, "w=%u", k);
        int64_t o = crfp_crf_obs_id(crf, w, (size_t)n);
        CHECK(o >= 0 && cnt[2 * o] == want_w[k] && cnt[2 * o + 1] == 0, "count of %s", w);
    }
    int64_t ob = crfp_crf_obs_id(crf, "B", 1), oc = crfp_crf_obs_id(crf, "cap", 3);
    CHECK(cnt[2 * ob] == 0 && cnt[2 * ob + 1] == ntok, "count of B");
    CHECK(cnt[2 * oc] == ncap && cnt[2 * oc + 1] == ncap, "count of cap");
    CHECK(crfp_dataset_obs_counts(ds, nobs - 1, cnt) == CRFP_EINVAL, "ids beyond nobs");
    /* The subset of the even words, B and cap, before finalize: labels,
     * flags and order kept, the data renumbered. */
    uint64_t keep[2] = {0, 0};
    for (uint32_t o = 0; o < nobs; o++) {
        const char *nm = crfp_crf_obs(crf, o, NULL);
        if (nm[0] != 'w' || atoi(nm + 2) % 2 == 0)
            keep[o >> 6] |= UINT64_C(1) << (o & 63);
    }
    crfp_crf *sub;
    uint32_t *map;
    CHECK(crfp_crf_subset(crf, keep, &sub, &map) == CRFP_OK, "subset");
    CHECK(crfp_crf_nobs(sub) == 27 && crfp_crf_nlabels(sub) == 4, "subset sizes %u",
          crfp_crf_nobs(sub));
    uint32_t next = 0;
    for (uint32_t o = 0; o < nobs; o++) {
        int kept = (keep[o >> 6] >> (o & 63)) & 1u;
        CHECK(kept ? map[o] == next++ : map[o] == UINT32_MAX, "map of %u", o);
        if (kept)
            CHECK(strcmp(crfp_crf_obs(sub, map[o], NULL), crfp_crf_obs(crf, o, NULL)) == 0,
                  "name of %u", o);
    }
    crfp_dataset *rds;
    CHECK(crfp_dataset_remap(ds, map, &rds) == CRFP_OK, "remap");
    CHECK(crfp_crf_finalize(sub) == CRFP_OK, "finalize the subset");
    int64_t sc = crfp_crf_obs_id(sub, "cap", 3);
    CHECK(sc >= 0 && crfp_crf_ublock(sub, (uint32_t)sc) != CRFP_NO_BLOCK &&
          crfp_crf_bblock(sub, (uint32_t)sc) != CRFP_NO_BLOCK, "cap keeps both blocks");
    CHECK(crfp_crf_bblock(sub, (uint32_t)crfp_crf_obs_id(sub, "B", 1)) != CRFP_NO_BLOCK &&
          crfp_crf_ublock(sub, (uint32_t)crfp_crf_obs_id(sub, "B", 1)) == CRFP_NO_BLOCK,
          "B stays a bigram observation");
    for (size_t i = 0; i < 3000; i++) {
        const crfp_seq *q = crfp_dataset_get(rds, i);
        for (uint32_t t = 0; t < q->T; t++) {
            char w[32];
            size_t k = (i + t) % 50;
            snprintf(w, sizeof w, "w=%zu", k);
            CHECK(has_obs(sub, q->uobs, q->uoff[t], q->uoff[t + 1], w) == (k % 2 == 0),
                  "remapped seq %zu tok %u", i, t);
        }
    }
    crfp_dataset_free(rds);
    crfp_crf_free(sub);
    free(map);
    free(cnt);

    CHECK(crfp_crf_finalize(crf) == CRFP_OK, "finalize");
    CHECK(crfp_crf_subset(crf, keep, &sub, &map) == CRFP_EINVAL && !sub && !map,
          "no subset of a finalized model");
    uint32_t id;
    CHECK(crfp_crf_add_obs(crf, "new", 3, CRFP_OBS_UNIGRAM, &id) == CRFP_EINVAL, "frozen");
    CHECK(crfp_crf_add_label(crf, "NEW", &id) == CRFP_EINVAL, "frozen labels");

    /* Without grow: unknown observations dropped, unknown labels refused. */
    crfp_dataset *dev = crfp_dataset_new();
    sentence(os, 7, 5, lab, 1);
    CHECK(crfp_dataset_add(host, dev, crf, os, lab, 0) == CRFP_OK, "dev add");
    const crfp_seq *s0 = crfp_dataset_get(dev, 0);
    CHECK(s0 && s0->uoff[1] - s0->uoff[0] == 2, "unknown dropped: %u",
          s0 ? s0->uoff[1] - s0->uoff[0] : 0);
    lab[2] = "I-XX";
    CHECK(crfp_dataset_add(host, dev, crf, os, lab, 0) == CRFP_ENOTFOUND, "unknown label");
    CHECK(strstr(crfp_errmsg(host), "I-XX") != NULL, "message names it: %s", crfp_errmsg(host));
    CHECK(crfp_dataset_size(dev) == 1, "failed add leaves nothing");

    /* The tagging buffer gives the same ids, unlabelled. */
    crfp_seqbuf *sb = crfp_seqbuf_new();
    const crfp_seq *ts;
    CHECK(crfp_seqbuf_fill(sb, crf, os, &ts) == CRFP_OK, "fill");
    CHECK(ts->T == 5 && ts->y == NULL, "tagging seq");
    CHECK(memcmp(ts->uobs, s0->uobs, s0->uoff[5] * sizeof(uint32_t)) == 0 &&
          memcmp(ts->uoff, s0->uoff, 6 * sizeof(uint32_t)) == 0 &&
          memcmp(ts->bobs, s0->bobs, s0->boff[5] * sizeof(uint32_t)) == 0, "same ids");

    /* Values: kept beside their observations by add (grow or not, unknown
     * ones dropped with theirs), by the tagging buffer and by remap; a
     * sentence whose kept values are all 1 has none; add_ids refuses a
     * value that is not finite. */
    {
        crfp_dataset *vd = crfp_dataset_new();
        crfp_obsseq_reset(os, 3);
        crfp_obsseq_push_value(os, 0, CRFP_OBS_UNIGRAM, "w=1", 3, 2.5);
        crfp_obsseq_push_value(os, 0, CRFP_OBS_UNIGRAM, "never-seen", 10, -7.0);
        crfp_obsseq_push_value(os, 0, CRFP_OBS_UNIGRAM | CRFP_OBS_BIGRAM, "cap", 3, 1.0);
        crfp_obsseq_push(os, 1, CRFP_OBS_BIGRAM, "B", 1);
        crfp_obsseq_push_value(os, 2, CRFP_OBS_UNIGRAM, "w=2", 3, -0.5);
        const char *vl[3] = {"O", "O", "B-NP"};
        CHECK(crfp_dataset_add(host, vd, crf, os, vl, 0) == CRFP_OK, "valued add");
        const crfp_seq *q = crfp_dataset_get(vd, 0);
        CHECK(q && q->uval && q->uoff[3] == 3 && q->uval[0] == 2.5 && q->uval[1] == 1.0 &&
                  q->uval[2] == -0.5 && has_obs(crf, q->uobs, 0, 1, "w=1") &&
                  has_obs(crf, q->uobs, 1, 2, "cap") && has_obs(crf, q->uobs, 2, 3, "w=2"),
              "values beside their observations");
        CHECK(crfp_seqbuf_fill(sb, crf, os, &ts) == CRFP_OK && ts->uval && ts->uoff[3] == 3 &&
                  memcmp(ts->uval, q->uval, 3 * sizeof(double)) == 0 &&
                  memcmp(ts->uobs, q->uobs, 3 * sizeof(uint32_t)) == 0,
              "tagging buffer keeps the values");
        /* only the unknown observation had a value: none are kept */
        crfp_obsseq_reset(os, 1);
        crfp_obsseq_push(os, 0, CRFP_OBS_UNIGRAM, "w=3", 3);
        crfp_obsseq_push_value(os, 0, CRFP_OBS_UNIGRAM, "never-seen", 10, 3.0);
        CHECK(crfp_dataset_add(host, vd, crf, os, vl, 0) == CRFP_OK, "add");
        CHECK(crfp_dataset_get(vd, 1)->uval == NULL, "all ones: no values");
        CHECK(crfp_seqbuf_fill(sb, crf, os, &ts) == CRFP_OK && ts->uoff[1] == 1, "fill");
        /* the earlier sentence's values are still where they were */
        q = crfp_dataset_get(vd, 0);
        CHECK(q->uval && q->uval[0] == 2.5 && q->uval[2] == -0.5, "first sentence intact");
        crfp_seq bad = *q;
        double nanv[3] = {1.0, NAN, 1.0};
        bad.uval = nanv;
        CHECK(crfp_dataset_add_ids(host, vd, &bad) == CRFP_EINVAL &&
                  crfp_dataset_size(vd) == 2, "a NaN value refused");
        crfp_seq copy = *q;
        CHECK(crfp_dataset_add_ids(host, vd, &copy) == CRFP_OK, "add_ids");
        const crfp_seq *c = crfp_dataset_get(vd, 2);
        CHECK(c->uval && memcmp(c->uval, crfp_dataset_get(vd, 0)->uval, 3 * sizeof(double)) == 0,
              "add_ids copies the values");
        /* remap to the observations other than w=2: the values follow */
        uint32_t *idmap = malloc(crfp_crf_nobs(crf) * sizeof *idmap);
        int64_t w2 = crfp_crf_obs_id(crf, "w=2", 3);
        for (uint32_t o = 0; o < crfp_crf_nobs(crf); o++)
            idmap[o] = (int64_t)o == w2 ? UINT32_MAX : o;
        crfp_dataset *rv;
        CHECK(crfp_dataset_remap(vd, idmap, &rv) == CRFP_OK, "remap");
        const crfp_seq *r0 = crfp_dataset_get(rv, 0);
        CHECK(r0->uoff[3] == 2 && r0->uval && r0->uval[0] == 2.5 && r0->uval[1] == 1.0 &&
                  crfp_dataset_get(rv, 1)->uval == NULL,
              "remap keeps the values of the observations kept");
        crfp_dataset_free(rv);
        free(idmap);
        crfp_dataset_free(vd);
        /* put the tagging sentence of the checks below back */
        sentence(os, 7, 5, lab, 1);
    }

    /* Errors: with θ = 0 every label ties and Viterbi says label 0. */
    size_t P = crfp_crf_nparams(crf);
    double *theta = calloc(P, sizeof(double));
    size_t expect = 0, expect_seq = 0;
    for (size_t i = 0; i < crfp_dataset_size(ds); i++) {
        const crfp_seq *s = crfp_dataset_get(ds, i);
        size_t e = 0;
        for (uint32_t t = 0; t < s->T; t++)
            e += s->y[t] != 0;
        expect += e;
        expect_seq += e != 0;
    }
    for (int nt = 1; nt <= 3; nt++) {
        size_t te, se;
        crfp_team *tm = NULL;
        CHECK(crfp_team_new(nt, &tm) == CRFP_OK, "team");
        CHECK(crfp_crf_errors(crf, ds, theta, tm, &te, &se) == CRFP_OK, "errors");
        crfp_team_free(tm);
        CHECK(te == expect && se == expect_seq, "threads %d: %zu/%zu vs %zu/%zu", nt, te, se,
              expect, expect_seq);
    }
    /* Weights that name the gold label from the word: no errors. */
    for (uint32_t wd = 0; wd < 50; wd++) {
        char w[32];
        int n = snprintf(w, sizeof w, "w=%u", wd);
        int64_t o = crfp_crf_obs_id(crf, w, (size_t)n);
        int64_t y = crfp_crf_label_id(crf, labels_of[wd % 4]);
        theta[crfp_crf_ublock(crf, (uint32_t)o) + (uint64_t)y] = 1.0;
    }
    size_t te, se;
    CHECK(crfp_crf_errors(crf, ds, theta, NULL, &te, &se) == CRFP_OK && te == 0 && se == 0,
          "perfect weights: %zu errors", te);
    free(theta);

    /* A big dictionary: 300k observations, then lookups of each. */
    crfp_crf *big = crfp_crf_new();
    char w[32];
    for (uint32_t i = 0; i < 300000; i++) {
        int n = snprintf(w, sizeof w, "U%02u:w=%u", i % 19, i);
        CHECK(crfp_crf_add_obs(big, w, (size_t)n, CRFP_OBS_UNIGRAM, &id) == CRFP_OK && id == i,
              "intern %u", i);
    }
    for (uint32_t i = 0; i < 300000; i++) {
        int n = snprintf(w, sizeof w, "U%02u:w=%u", i % 19, i);
        CHECK(crfp_crf_obs_id(big, w, (size_t)n) == i, "find %u", i);
    }
    CHECK(crfp_crf_obs_id(big, "U00:w=x", 7) < 0, "absent");
    crfp_crf_free(big);

    crfp_seqbuf_free(sb);
    crfp_dataset_free(dev);
    crfp_obsseq_free(os);
    crfp_dataset_free(ds);
    crfp_crf_free(crf);
    crfp_host_free(host);
    if (test_failures)
        fprintf(stderr, "%d failures\n", test_failures);
    return test_failures ? 1 : 0;
}
