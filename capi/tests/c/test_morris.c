/* The C interface from C: opens a database that the morris binary
 * solved, and holds its answers to those of `morris probe --moves
 * --format tsv` on the same positions (capi/tests/c/positions.txt);
 * checks the perfect player's move against the move list, the position
 * after it against morris_value, and the failures' statuses and messages.
 * Exits 1 at the first mismatch. .ci/run builds and runs it:
 *
 *     test_morris DB EXPECTED.tsv
 *
 * DB holds six's moving phase up to 7 stones; EXPECTED.tsv is what
 * `morris probe --variant six --db DB --moves --format tsv` printed for
 * positions.txt. */

#include "morris.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks = 0;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            fprintf(stderr, "test_morris.c:%d: check failed: %s: ",       \
                    __LINE__, #cond);                                     \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

/* This thread's last message. */
static const char *last_error(void) {
    static char message[4096];
    size_t needed = 0;
    MorrisStatus s = morris_last_error(message, sizeof message, &needed);
    CHECK(s == MORRIS_STATUS_OK, "morris_last_error: %s (needs %zu bytes)",
          morris_status_name(s), needed);
    return message;
}

static MorrisKind kind_of(const char *word) {
    if (strcmp(word, "win") == 0) return MORRIS_KIND_WIN;
    if (strcmp(word, "loss") == 0) return MORRIS_KIND_LOSS;
    CHECK(strcmp(word, "draw") == 0, "value '%s' is none", word);
    return MORRIS_KIND_DRAW;
}

static MorrisKind reverse(MorrisKind k) { return (MorrisKind)(-(int32_t)k); }

/* Splits `line` at tabs in place, into at most `max` fields. */
static int split_tabs(char *line, char **fields, int max) {
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (tab == NULL) break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

/* One row of the expected table: position, value, plies, exact, moves. */
static void check_row(const MorrisDb *db, char *line) {
    char *f[5];
    int n = split_tabs(line, f, 5);
    CHECK(n == 5, "a row of 5 fields, found %d", n);
    const char *position = f[0];
    CHECK(strcmp(f[1], "error") != 0, "%s: morris probe failed: %s", position, f[4]);

    MorrisValue value;
    MorrisStatus s = morris_value(db, position, &value);
    CHECK(s == MORRIS_STATUS_OK, "%s: %s: %s", position, morris_status_name(s), last_error());
    CHECK(value.kind == kind_of(f[1]), "%s: kind %d, probe says %s", position, value.kind, f[1]);
    int plies = f[2][0] ? atoi(f[2]) : -1;
    CHECK(value.plies == plies, "%s: plies %d, probe says '%s'", position, value.plies, f[2]);
    CHECK(value.exact == (strcmp(f[3], "true") == 0), "%s: exact %d, probe says %s", position,
          value.exact, f[3]);

    /* The count first, then the moves. */
    size_t count = 0;
    s = morris_moves(db, position, NULL, 0, &count);
    CHECK(s == (count ? MORRIS_STATUS_BUFFER_TOO_SMALL : MORRIS_STATUS_OK), "%s: %s", position,
          morris_status_name(s));
    MorrisMove *moves = calloc(count ? count : 1, sizeof *moves);
    size_t again = 0;
    s = morris_moves(db, position, moves, count, &again);
    CHECK(s == MORRIS_STATUS_OK && again == count, "%s: %s, %zu moves then %zu", position,
          morris_status_name(s), count, again);

    /* Each of probe's "MOVE:VALUE[:PLIES]", in order. */
    size_t i = 0;
    for (char *word = strtok(f[4], " "); word != NULL; word = strtok(NULL, " "), i++) {
        CHECK(i < count, "%s: probe lists more than %zu moves", position, count);
        char *kind = strchr(word, ':');
        CHECK(kind != NULL, "%s: '%s' has no value", position, word);
        *kind++ = '\0';
        char *distance = strchr(kind, ':');
        if (distance != NULL) *distance++ = '\0';
        const MorrisMove *m = &moves[i];
        CHECK(strcmp(m->notation, word) == 0, "%s: move %zu is %s, probe says %s", position, i,
              m->notation, word);
        CHECK(m->value.kind == kind_of(kind), "%s %s: kind %d, probe says %s", position, word,
              m->value.kind, kind);
        int move_plies = distance ? atoi(distance) : -1;
        CHECK(m->value.plies == move_plies, "%s %s: plies %d, probe says %d", position, word,
              m->value.plies, move_plies);
        CHECK(distance == NULL || m->value.exact, "%s %s: a distance, not exact", position, word);
    }
    CHECK(i == count, "%s: %zu moves, probe lists %zu", position, count, i);

    /* The perfect player's move keeps the position's value: it is one of
     * the moves, of the first move's value. */
    char best[MORRIS_MOVE_LEN];
    size_t needed = 0;
    MorrisValue best_value;
    s = morris_best_move(db, position, NULL, best, sizeof best, &needed, &best_value);
    if (count == 0) {
        CHECK(s == MORRIS_STATUS_GAME_OVER, "%s: %s", position, morris_status_name(s));
        CHECK(strstr(last_error(), "game is over") != NULL, "%s: %s", position, last_error());
        free(moves);
        return;
    }
    CHECK(s == MORRIS_STATUS_OK, "%s: %s: %s", position, morris_status_name(s), last_error());
    CHECK(needed == strlen(best) + 1, "%s: needed %zu for '%s'", position, needed, best);
    size_t found = count;
    for (size_t j = 0; j < count; j++) {
        if (strcmp(moves[j].notation, best) == 0) found = j;
    }
    CHECK(found < count, "%s: best move %s is not among the moves", position, best);
    CHECK(best_value.kind == moves[0].value.kind && best_value.kind == value.kind,
          "%s: best move %s has kind %d, the position %d", position, best, best_value.kind,
          value.kind);
    CHECK(moves[found].value.kind == best_value.kind &&
              moves[found].value.plies == best_value.plies &&
              moves[found].value.exact == best_value.exact,
          "%s: best move %s's value differs from its listed one", position, best);

    /* The position after it is worth the reverse to the other side; a
     * capture that leaves two stones ends the game, and the notation
     * refuses the position it leaves. */
    char next[MORRIS_POSITION_LEN];
    s = morris_play(db, position, best, next, sizeof next, NULL);
    CHECK(s == MORRIS_STATUS_OK, "%s %s: %s: %s", position, best, morris_status_name(s),
          last_error());
    MorrisValue after;
    s = morris_value(db, next, &after);
    if (best_value.kind == MORRIS_KIND_WIN && best_value.plies == 1 &&
        s == MORRIS_STATUS_BAD_NOTATION) {
        CHECK(strstr(last_error(), "the game is already over") != NULL, "%s: %s", next,
              last_error());
        free(moves);
        return;
    }
    CHECK(s == MORRIS_STATUS_OK, "%s: %s: %s", next, morris_status_name(s), last_error());
    CHECK(after.kind == reverse(best_value.kind), "%s after %s: kind %d, the move's %d", position,
          best, after.kind, best_value.kind);
    free(moves);
}

static void check_failures(const char *dir) {
    MorrisDb *db = NULL;
    MorrisStatus s = morris_db_open(dir, "six", NULL, NULL, &db);
    CHECK(s == MORRIS_STATUS_OK, "open %s: %s", dir, last_error());
    MorrisValue value;

    s = morris_value(db, "bogus", &value);
    CHECK(s == MORRIS_STATUS_BAD_NOTATION, "bogus: %s", morris_status_name(s));
    CHECK(strstr(last_error(), "position 'bogus'") != NULL, "message: %s", last_error());

    s = morris_value(db, "start", &value);
    CHECK(s == MORRIS_STATUS_NOT_SOLVED, "start: %s", morris_status_name(s));
    CHECK(strstr(last_error(), "morris solve --variant six") != NULL, "message: %s", last_error());

    s = morris_value(db, NULL, &value);
    CHECK(s == MORRIS_STATUS_BAD_ARGUMENT, "NULL position: %s", morris_status_name(s));
    s = morris_value(db, "WW.W..../B.B.B... w 0 0\xff", &value);
    CHECK(s == MORRIS_STATUS_BAD_ARGUMENT, "not UTF-8: %s", morris_status_name(s));
    CHECK(strstr(last_error(), "not UTF-8") != NULL, "message: %s", last_error());

    char small[4] = "???";
    size_t needed = 0;
    s = morris_play(db, "WW.W..../B.B.B... w 0 0", "e3-e5xb4", small, sizeof small, &needed);
    CHECK(s == MORRIS_STATUS_BUFFER_TOO_SMALL && small[0] == '\0' &&
              needed == strlen("WW.W..../B.B.B... w 0 0") + 1,
          "%s, needed %zu", morris_status_name(s), needed);
    s = morris_play(db, "WW.W..../B.B.B... w 0 0", "a5-e1", small, sizeof small, &needed);
    CHECK(s == MORRIS_STATUS_BAD_NOTATION, "illegal move: %s", morris_status_name(s));
    CHECK(strstr(last_error(), "not legal") != NULL, "message: %s", last_error());
    morris_db_close(db);

    /* A directory that is not there; a variant that is none. */
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/not-there", dir);
    db = (MorrisDb *)1;
    s = morris_db_open(missing, "six", NULL, NULL, &db);
    CHECK(s == MORRIS_STATUS_IO && db == NULL, "%s: %s", missing, morris_status_name(s));
    CHECK(strstr(last_error(), "no such database directory") != NULL, "message: %s",
          last_error());
    s = morris_db_open(dir, "ninety", NULL, NULL, &db);
    CHECK(s == MORRIS_STATUS_BAD_ARGUMENT, "ninety: %s", morris_status_name(s));
    s = morris_db_open(dir, "six", "often", NULL, &db);
    CHECK(s == MORRIS_STATUS_BAD_ARGUMENT, "fly_at often: %s", morris_status_name(s));
    morris_db_close(NULL);
    CHECK(strcmp(morris_status_name(MORRIS_STATUS_NOT_SOLVED), "not solved") == 0, "a name");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s DB EXPECTED.tsv\n", argv[0]);
        return 2;
    }
    MorrisDb *db = NULL;
    MorrisStatus s = morris_db_open(argv[1], "six", NULL, NULL, &db);
    CHECK(s == MORRIS_STATUS_OK, "open %s: %s", argv[1], last_error());

    FILE *expected = fopen(argv[2], "r");
    CHECK(expected != NULL, "cannot open %s", argv[2]);
    char line[8192];
    int rows = 0;
    while (fgets(line, sizeof line, expected) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (rows++ == 0) {
            CHECK(strncmp(line, "position\t", 9) == 0, "a header, found '%s'", line);
            continue;
        }
        check_row(db, line);
    }
    fclose(expected);
    CHECK(rows >= 9, "%d rows in %s: the header and the positions", rows, argv[2]);
    morris_db_close(db);

    check_failures(argv[1]);
    printf("test_morris: %d positions, %d checks passed (morris %s)\n", rows - 1, checks,
           morris_version());
    return 0;
}
