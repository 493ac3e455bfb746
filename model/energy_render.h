#pragma once
// The energy part of fit's and predict's text and Markdown: the answer in words, the power
// model with its verdict, the four decisions with intervals, and the configurations' energy; one
// line saying why where there is no energy.
#include <string>

#include "model/energy_decision.h"

namespace hpcsens::model {

std::string render_energy(const EnergyReport& e, bool markdown);

}  // namespace hpcsens::model
