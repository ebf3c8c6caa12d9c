// The one compilation of the Eigen decompositions that mixgraph/eigen_dense.hpp declares extern.
#include <Eigen/Dense>

template class Eigen::JacobiSVD<Eigen::MatrixXd>;
template class Eigen::BDCSVD<Eigen::MatrixXd>;
template class Eigen::ColPivHouseholderQR<Eigen::MatrixXd>;
template class Eigen::HouseholderQR<Eigen::MatrixXd>;
template class Eigen::FullPivLU<Eigen::MatrixXd>;
