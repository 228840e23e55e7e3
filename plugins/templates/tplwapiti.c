/* templates plugin — the regular expressions of Wapiti's patterns.
 *
 * A template in Wapiti's dialect ('#!wapiti') must give the observations
 * Wapiti gives, or a model imported from Wapiti would not find its
 * features.  Wapiti's %t and %m do not use a regex library but a small
 * backtracking matcher with its own rules, which ICU's syntax cannot spell
 * exactly, so the dialect runs those rules here:
 *
 *   - the subject is bytes, not characters: '.' is any one byte;
 *   - "\a \d \l \p \s \u \w" are C's isalpha, isdigit, islower, ispunct,
 *     isspace, isupper and isalnum in the "C" locale (ASCII only: a byte of
 *     a multi-byte UTF-8 character is in none of them), a capital letter
 *     ("\A" ...) the complement; '\' before any other byte is that byte;
 *   - '^' anchors only as the first byte of the regex, '$' only as its last;
 *     elsewhere they are ordinary bytes;
 *   - "x*" repeats x as few times as it can (lazily), "x?" takes x when it
 *     can; both give back on backtracking; there is no '+', no class in
 *     brackets, no group and no alternation;
 *   - the leftmost match wins, trying every start up to the end of the
 *     subject (where only an empty match fits).
 *
 * Wapiti stops with an error when its matcher meets a '*' or '?' with
 * nothing to repeat; tpl_wrx_check refuses such a regex when the template
 * loads instead.  The recursion is one level per '*' or '?' of the regex,
 * so their number is bounded; backtracking is counted against a budget, as
 * ICU's time limit does for the other templates.
 */
#include <stddef.h>
#include "tpl.h"

/* Repetitions allowed in one regex: each is one level of recursion. */
#define MAX_REPEATS 256

static int in_class(char cls, unsigned char c)
{
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    int digit = c >= '0' && c <= '9';
    switch (cls) {
    case 'a': return alpha;
    case 'd': return digit;
    case 'l': return c >= 'a' && c <= 'z';
    case 'u': return c >= 'A' && c <= 'Z';
    case 'w': return alpha || digit;
    case 's': return c == ' ' || (c >= '\t' && c <= '\r');
    case 'p': return c > ' ' && c < 0x7f && !alpha && !digit;
    }
    return -1;
}

/* Whether the item at it (one byte, '.', or '\' and a byte) takes the
 * subject byte c, which is not the end. */
static int takes(const char *it, unsigned char c)
{
    if (it[0] == '.')
        return 1;
    if (it[0] != '\\')
        return (unsigned char)it[0] == c;
    char k = it[1];
    int r = in_class(k >= 'A' && k <= 'Z' ? (char)(k - 'A' + 'a') : k, c);
    if (r < 0)
        return (unsigned char)k == c;
    return k >= 'A' && k <= 'Z' ? !r : r;
}

const char *tpl_wrx_check(const char *re, size_t n)
{
    size_t i = 0, repeats = 0;
    if (i < n && re[i] == '^')
        i++;
    while (i < n) {
        if (re[i] == '\0')
            return "a NUL byte in the regular expression";
        if (re[i] == '$' && i + 1 == n)
            break;
        if (re[i] == '*' || re[i] == '?')
            return "a '*' or '?' with nothing to repeat (Wapiti stops on it; escape it as "
                   "\\* or \\?)";
        if (re[i] == '\\') {
            if (i + 1 == n)
                return "a '\\' at the end of the regular expression";
            if (re[i + 1] == '\0')
                return "a NUL byte in the regular expression";
            i++;
        }
        i++;
        if (i < n && (re[i] == '*' || re[i] == '?')) {
            if (++repeats > MAX_REPEATS)
                return "more than 256 repetitions ('*' or '?') in one regular expression";
            i++;
        }
    }
    return NULL;
}

typedef struct run {
    unsigned long *budget;
    int out;            /* the budget ran out */
} run;

/* Match re at the start of s: the end of the match, or NULL. */
static const char *match_here(const char *re, const char *s, run *r)
{
    for (;;) {
        if (r->budget) {
            if (*r->budget == 0) {
                r->out = 1;
                return NULL;
            }
            --*r->budget;
        }
        if (re[0] == '\0')
            return s;
        if (re[0] == '$' && re[1] == '\0')
            return *s ? NULL : s;
        const char *it = re, *next = re + (re[0] == '\\' ? 2 : 1);
        if (*next == '*') {
            /* lazy: the rest first, then one more x, and again */
            next++;
            for (;;) {
                const char *e = match_here(next, s, r);
                if (e || r->out)
                    return e;
                if (!*s || !takes(it, (unsigned char)*s))
                    return NULL;
                s++;
                if (r->budget) {
                    if (*r->budget == 0) {
                        r->out = 1;
                        return NULL;
                    }
                    --*r->budget;
                }
            }
        }
        if (*next == '?') {
            /* greedy: with x first, then without */
            next++;
            if (*s && takes(it, (unsigned char)*s)) {
                const char *e = match_here(next, s + 1, r);
                if (e || r->out)
                    return e;
            }
            re = next;
            continue;
        }
        if (!*s || !takes(it, (unsigned char)*s))
            return NULL;
        re = next;
        s++;
    }
}

long tpl_wrx_find(const char *re, const char *s, size_t *len, unsigned long *budget)
{
    run r = {.budget = budget};
    const char *e;
    if (re[0] == '^') {
        e = match_here(re + 1, s, &r);
        if (!e)
            return r.out ? -2 : -1;
        *len = (size_t)(e - s);
        return 0;
    }
    for (const char *at = s;; at++) {
        e = match_here(re, at, &r);
        if (e) {
            *len = (size_t)(e - at);
            return at - s;
        }
        if (r.out)
            return -2;
        if (!*at)
            return -1;
    }
}
