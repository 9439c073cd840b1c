# The kernel options fsbench images need, for distros that ask for them
# with DISTRO_FEATURES:append = " fsbench": without the feature this append
# changes nothing, so adding the layer leaves every other build as it was.
require ${@bb.utils.contains('DISTRO_FEATURES', 'fsbench', 'linux-yocto-fsbench.inc', '', d)}
