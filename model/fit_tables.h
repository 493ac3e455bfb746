#pragma once
// Tidy CSV tables of a model report (`hpcsens fit --format csv --table points|terms|ranks`):
// one table per call, plain column names with units, numbers unrounded, one value per cell.
#include <string>

#include "model/analysis.h"

namespace hpcsens::model {

// table: "points" (one row per configuration), "terms" (one row per term), "ranks" (one row per
// rank; needs --per-rank). Throws InputError for an unknown table or ranks without per-rank data.
std::string render_fit_csv(const ModelReport& rep, const std::string& table);

// A CSV cell: quoted when it holds a comma, quote or line break.
std::string csv_cell(const std::string& s);

}  // namespace hpcsens::model
