#!/usr/bin/env bash
# The tie-break measurements of docs/match.md: every perfect player against
# every opponent, GAMES games each colour, one line of `morris match --tsv`
# per pairing (player, opponent, then wins draws losses as White, as Black
# and in total, then plies a game).
#
#   scripts/match.sh DB [VARIANT [GAMES [THREADS]]]
#
# DB must hold the variant's whole tables (`morris --variant six --db DB
# solve`: seconds for six). Defaults: six, 1000 games, 1 thread. PLAYERS and
# OPPONENTS (space-separated specs) override the lists below; LOOKUP=blocks
# keeps decompressed blocks up to 4 GiB instead of loading every table into
# memory (for nine, whose tables do not fit in memory); LOOKUP=tables reads
# a block per value.
set -euo pipefail
db=${1:?usage: scripts/match.sh DB [VARIANT [GAMES [THREADS]]]}
variant=${2:-six}
games=${3:-1000}
threads=${4:-1}
morris=${MORRIS:-target/release/morris}
players=${PLAYERS:-"perfect:uniform perfect:replies perfect:share perfect:traps2 perfect:balance
  perfect:uniform:playon perfect:replies:playon perfect:share:playon perfect:traps2:playon perfect:balance:playon"}
opponents=${OPPONENTS:-"fallible:0.05 fallible:0.2 alphabeta:2 alphabeta:4"}
printf 'player\topponent\tw_wins\tw_draws\tw_losses\tb_wins\tb_draws\tb_losses\twins\tdraws\tlosses\tplies\n'
for opponent in $opponents; do
  for player in $players; do
    "$morris" --variant "$variant" --db "$db" match --player "$player" --opponent "$opponent" \
      --games "$games" --seed 1 --threads "$threads" --lookup "${LOOKUP:-memory}" --tsv
  done
done
