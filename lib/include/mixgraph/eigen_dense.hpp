#pragma once
// <Eigen/Dense>, with the decompositions mixgraph runs on Eigen::MatrixXd compiled once, in the library
// (lib/src/core/eigen_dense.cpp), instead of in every file that uses them: each of JacobiSVD and BDCSVD
// costs about 20 s of compile time per file at -O3. Include this rather than <Eigen/Dense>.
#include <Eigen/Dense>

extern template class Eigen::JacobiSVD<Eigen::MatrixXd>;
extern template class Eigen::BDCSVD<Eigen::MatrixXd>;
extern template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::HouseholderQR<Eigen::MatrixXd>;
extern template class Eigen::FullPivLU<Eigen::MatrixXd>;
