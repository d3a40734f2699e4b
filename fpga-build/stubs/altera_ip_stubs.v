// Stand-ins for the Altera IP the FPGA wrapper instantiates, for the open flow only
// (Verilator lint, Icarus elaboration). Yosys reads this file with `read_verilog
// -lib`, so there these modules are black boxes and cost nothing. Quartus never
// sees this file: it compiles the real variants from fpga-build/quartus/ip/.
//
// The hard IP port list is that of an IP Compiler for PCI Express variant for the
// Stratix IV GX hard IP, 8 lanes, Gen2, 100 MHz reference clock, Avalon-ST 128-bit
// (the module header Quartus' MegaWizard writes for such a variant; see the README
// for which names are verified and which assumed). Outputs are tied to zero.

// Native endpoint (ports N, E, and S when S is an endpoint): stand-in for the IP Compiler for PCI Express variant of that name.
module peach2_hip_ep (
    input wire app_int_sts,
    input wire [4:0] app_msi_num,
    input wire app_msi_req,
    input wire [2:0] app_msi_tc,
    input wire busy_altgxb_reconfig,
    input wire cal_blk_clk,
    input wire [6:0] cpl_err,
    input wire cpl_pending,
    input wire crst,
    input wire fixedclk_serdes,
    input wire gxb_powerdown,
    input wire [4:0] hpg_ctrler,
    input wire [11:0] lmi_addr,
    input wire [31:0] lmi_din,
    input wire lmi_rden,
    input wire lmi_wren,
    input wire npor,
    input wire pclk_in,
    input wire [4:0] pex_msi_num,
    input wire phystatus_ext,
    input wire pipe_mode,
    input wire pld_clk,
    input wire pll_powerdown,
    input wire pm_auxpwr,
    input wire [9:0] pm_data,
    input wire pm_event,
    input wire pme_to_cr,
    input wire reconfig_clk,
    input wire [3:0] reconfig_togxb,
    input wire refclk,
    input wire rx_in0,
    input wire rx_in1,
    input wire rx_in2,
    input wire rx_in3,
    input wire rx_in4,
    input wire rx_in5,
    input wire rx_in6,
    input wire rx_in7,
    input wire rx_st_mask0,
    input wire rx_st_ready0,
    input wire [7:0] rxdata0_ext,
    input wire [7:0] rxdata1_ext,
    input wire [7:0] rxdata2_ext,
    input wire [7:0] rxdata3_ext,
    input wire [7:0] rxdata4_ext,
    input wire [7:0] rxdata5_ext,
    input wire [7:0] rxdata6_ext,
    input wire [7:0] rxdata7_ext,
    input wire rxdatak0_ext,
    input wire rxdatak1_ext,
    input wire rxdatak2_ext,
    input wire rxdatak3_ext,
    input wire rxdatak4_ext,
    input wire rxdatak5_ext,
    input wire rxdatak6_ext,
    input wire rxdatak7_ext,
    input wire rxelecidle0_ext,
    input wire rxelecidle1_ext,
    input wire rxelecidle2_ext,
    input wire rxelecidle3_ext,
    input wire rxelecidle4_ext,
    input wire rxelecidle5_ext,
    input wire rxelecidle6_ext,
    input wire rxelecidle7_ext,
    input wire [2:0] rxstatus0_ext,
    input wire [2:0] rxstatus1_ext,
    input wire [2:0] rxstatus2_ext,
    input wire [2:0] rxstatus3_ext,
    input wire [2:0] rxstatus4_ext,
    input wire [2:0] rxstatus5_ext,
    input wire [2:0] rxstatus6_ext,
    input wire [2:0] rxstatus7_ext,
    input wire rxvalid0_ext,
    input wire rxvalid1_ext,
    input wire rxvalid2_ext,
    input wire rxvalid3_ext,
    input wire rxvalid4_ext,
    input wire rxvalid5_ext,
    input wire rxvalid6_ext,
    input wire rxvalid7_ext,
    input wire srst,
    input wire [39:0] test_in,
    input wire [127:0] tx_st_data0,
    input wire tx_st_empty0,
    input wire tx_st_eop0,
    input wire tx_st_err0,
    input wire tx_st_sop0,
    input wire tx_st_valid0,
    output wire app_int_ack,
    output wire app_msi_ack,
    output wire clk250_out,
    output wire clk500_out,
    output wire core_clk_out,
    output wire derr_cor_ext_rcv0,
    output wire derr_cor_ext_rpl,
    output wire derr_rpl,
    output wire dlup_exit,
    output wire hotrst_exit,
    output wire [19:0] ko_cpl_spc_vc0,
    output wire l2_exit,
    output wire [3:0] lane_act,
    output wire lmi_ack,
    output wire [31:0] lmi_dout,
    output wire [4:0] ltssm,
    output wire npd_alloc_1cred_vc0,
    output wire npd_cred_vio_vc0,
    output wire nph_alloc_1cred_vc0,
    output wire nph_cred_vio_vc0,
    output wire pme_to_sr,
    output wire [1:0] powerdown_ext,
    output wire r2c_err0,
    output wire rate_ext,
    output wire rc_pll_locked,
    output wire rc_rx_digitalreset,
    output wire [33:0] reconfig_fromgxb,
    output wire reset_status,
    output wire rx_fifo_empty0,
    output wire rx_fifo_full0,
    output wire [7:0] rx_st_bardec0,
    output wire [15:0] rx_st_be0,
    output wire [127:0] rx_st_data0,
    output wire rx_st_empty0,
    output wire rx_st_eop0,
    output wire rx_st_err0,
    output wire rx_st_sop0,
    output wire rx_st_valid0,
    output wire rxpolarity0_ext,
    output wire rxpolarity1_ext,
    output wire rxpolarity2_ext,
    output wire rxpolarity3_ext,
    output wire rxpolarity4_ext,
    output wire rxpolarity5_ext,
    output wire rxpolarity6_ext,
    output wire rxpolarity7_ext,
    output wire suc_spd_neg,
    output wire [3:0] tl_cfg_add,
    output wire [31:0] tl_cfg_ctl,
    output wire tl_cfg_ctl_wr,
    output wire [52:0] tl_cfg_sts,
    output wire tl_cfg_sts_wr,
    output wire [35:0] tx_cred0,
    output wire tx_fifo_empty0,
    output wire tx_fifo_full0,
    output wire [3:0] tx_fifo_rdptr0,
    output wire [3:0] tx_fifo_wrptr0,
    output wire tx_out0,
    output wire tx_out1,
    output wire tx_out2,
    output wire tx_out3,
    output wire tx_out4,
    output wire tx_out5,
    output wire tx_out6,
    output wire tx_out7,
    output wire tx_st_ready0,
    output wire txcompl0_ext,
    output wire txcompl1_ext,
    output wire txcompl2_ext,
    output wire txcompl3_ext,
    output wire txcompl4_ext,
    output wire txcompl5_ext,
    output wire txcompl6_ext,
    output wire txcompl7_ext,
    output wire [7:0] txdata0_ext,
    output wire [7:0] txdata1_ext,
    output wire [7:0] txdata2_ext,
    output wire [7:0] txdata3_ext,
    output wire [7:0] txdata4_ext,
    output wire [7:0] txdata5_ext,
    output wire [7:0] txdata6_ext,
    output wire [7:0] txdata7_ext,
    output wire txdatak0_ext,
    output wire txdatak1_ext,
    output wire txdatak2_ext,
    output wire txdatak3_ext,
    output wire txdatak4_ext,
    output wire txdatak5_ext,
    output wire txdatak6_ext,
    output wire txdatak7_ext,
    output wire txdetectrx_ext,
    output wire txelecidle0_ext,
    output wire txelecidle1_ext,
    output wire txelecidle2_ext,
    output wire txelecidle3_ext,
    output wire txelecidle4_ext,
    output wire txelecidle5_ext,
    output wire txelecidle6_ext,
    output wire txelecidle7_ext
);
    assign app_int_ack = 1'd0;
    assign app_msi_ack = 1'd0;
    assign clk250_out = 1'd0;
    assign clk500_out = 1'd0;
    assign core_clk_out = 1'd0;
    assign derr_cor_ext_rcv0 = 1'd0;
    assign derr_cor_ext_rpl = 1'd0;
    assign derr_rpl = 1'd0;
    assign dlup_exit = 1'd0;
    assign hotrst_exit = 1'd0;
    assign ko_cpl_spc_vc0 = 20'd0;
    assign l2_exit = 1'd0;
    assign lane_act = 4'd0;
    assign lmi_ack = 1'd0;
    assign lmi_dout = 32'd0;
    assign ltssm = 5'd0;
    assign npd_alloc_1cred_vc0 = 1'd0;
    assign npd_cred_vio_vc0 = 1'd0;
    assign nph_alloc_1cred_vc0 = 1'd0;
    assign nph_cred_vio_vc0 = 1'd0;
    assign pme_to_sr = 1'd0;
    assign powerdown_ext = 2'd0;
    assign r2c_err0 = 1'd0;
    assign rate_ext = 1'd0;
    assign rc_pll_locked = 1'd0;
    assign rc_rx_digitalreset = 1'd0;
    assign reconfig_fromgxb = 34'd0;
    assign reset_status = 1'd0;
    assign rx_fifo_empty0 = 1'd0;
    assign rx_fifo_full0 = 1'd0;
    assign rx_st_bardec0 = 8'd0;
    assign rx_st_be0 = 16'd0;
    assign rx_st_data0 = 128'd0;
    assign rx_st_empty0 = 1'd0;
    assign rx_st_eop0 = 1'd0;
    assign rx_st_err0 = 1'd0;
    assign rx_st_sop0 = 1'd0;
    assign rx_st_valid0 = 1'd0;
    assign rxpolarity0_ext = 1'd0;
    assign rxpolarity1_ext = 1'd0;
    assign rxpolarity2_ext = 1'd0;
    assign rxpolarity3_ext = 1'd0;
    assign rxpolarity4_ext = 1'd0;
    assign rxpolarity5_ext = 1'd0;
    assign rxpolarity6_ext = 1'd0;
    assign rxpolarity7_ext = 1'd0;
    assign suc_spd_neg = 1'd0;
    assign tl_cfg_add = 4'd0;
    assign tl_cfg_ctl = 32'd0;
    assign tl_cfg_ctl_wr = 1'd0;
    assign tl_cfg_sts = 53'd0;
    assign tl_cfg_sts_wr = 1'd0;
    assign tx_cred0 = 36'd0;
    assign tx_fifo_empty0 = 1'd0;
    assign tx_fifo_full0 = 1'd0;
    assign tx_fifo_rdptr0 = 4'd0;
    assign tx_fifo_wrptr0 = 4'd0;
    assign tx_out0 = 1'd0;
    assign tx_out1 = 1'd0;
    assign tx_out2 = 1'd0;
    assign tx_out3 = 1'd0;
    assign tx_out4 = 1'd0;
    assign tx_out5 = 1'd0;
    assign tx_out6 = 1'd0;
    assign tx_out7 = 1'd0;
    assign tx_st_ready0 = 1'd0;
    assign txcompl0_ext = 1'd0;
    assign txcompl1_ext = 1'd0;
    assign txcompl2_ext = 1'd0;
    assign txcompl3_ext = 1'd0;
    assign txcompl4_ext = 1'd0;
    assign txcompl5_ext = 1'd0;
    assign txcompl6_ext = 1'd0;
    assign txcompl7_ext = 1'd0;
    assign txdata0_ext = 8'd0;
    assign txdata1_ext = 8'd0;
    assign txdata2_ext = 8'd0;
    assign txdata3_ext = 8'd0;
    assign txdata4_ext = 8'd0;
    assign txdata5_ext = 8'd0;
    assign txdata6_ext = 8'd0;
    assign txdata7_ext = 8'd0;
    assign txdatak0_ext = 1'd0;
    assign txdatak1_ext = 1'd0;
    assign txdatak2_ext = 1'd0;
    assign txdatak3_ext = 1'd0;
    assign txdatak4_ext = 1'd0;
    assign txdatak5_ext = 1'd0;
    assign txdatak6_ext = 1'd0;
    assign txdatak7_ext = 1'd0;
    assign txdetectrx_ext = 1'd0;
    assign txelecidle0_ext = 1'd0;
    assign txelecidle1_ext = 1'd0;
    assign txelecidle2_ext = 1'd0;
    assign txelecidle3_ext = 1'd0;
    assign txelecidle4_ext = 1'd0;
    assign txelecidle5_ext = 1'd0;
    assign txelecidle6_ext = 1'd0;
    assign txelecidle7_ext = 1'd0;
endmodule

// Root port (port W, and S when S is a root port): stand-in for the IP Compiler for PCI Express variant of that name.
module peach2_hip_rc (
    input wire app_int_sts,
    input wire [4:0] app_msi_num,
    input wire app_msi_req,
    input wire [2:0] app_msi_tc,
    input wire busy_altgxb_reconfig,
    input wire cal_blk_clk,
    input wire [6:0] cpl_err,
    input wire cpl_pending,
    input wire crst,
    input wire fixedclk_serdes,
    input wire gxb_powerdown,
    input wire [4:0] hpg_ctrler,
    input wire [11:0] lmi_addr,
    input wire [31:0] lmi_din,
    input wire lmi_rden,
    input wire lmi_wren,
    input wire npor,
    input wire pclk_in,
    input wire [4:0] pex_msi_num,
    input wire phystatus_ext,
    input wire pipe_mode,
    input wire pld_clk,
    input wire pll_powerdown,
    input wire pm_auxpwr,
    input wire [9:0] pm_data,
    input wire pm_event,
    input wire pme_to_cr,
    input wire reconfig_clk,
    input wire [3:0] reconfig_togxb,
    input wire refclk,
    input wire rx_in0,
    input wire rx_in1,
    input wire rx_in2,
    input wire rx_in3,
    input wire rx_in4,
    input wire rx_in5,
    input wire rx_in6,
    input wire rx_in7,
    input wire rx_st_mask0,
    input wire rx_st_ready0,
    input wire [7:0] rxdata0_ext,
    input wire [7:0] rxdata1_ext,
    input wire [7:0] rxdata2_ext,
    input wire [7:0] rxdata3_ext,
    input wire [7:0] rxdata4_ext,
    input wire [7:0] rxdata5_ext,
    input wire [7:0] rxdata6_ext,
    input wire [7:0] rxdata7_ext,
    input wire rxdatak0_ext,
    input wire rxdatak1_ext,
    input wire rxdatak2_ext,
    input wire rxdatak3_ext,
    input wire rxdatak4_ext,
    input wire rxdatak5_ext,
    input wire rxdatak6_ext,
    input wire rxdatak7_ext,
    input wire rxelecidle0_ext,
    input wire rxelecidle1_ext,
    input wire rxelecidle2_ext,
    input wire rxelecidle3_ext,
    input wire rxelecidle4_ext,
    input wire rxelecidle5_ext,
    input wire rxelecidle6_ext,
    input wire rxelecidle7_ext,
    input wire [2:0] rxstatus0_ext,
    input wire [2:0] rxstatus1_ext,
    input wire [2:0] rxstatus2_ext,
    input wire [2:0] rxstatus3_ext,
    input wire [2:0] rxstatus4_ext,
    input wire [2:0] rxstatus5_ext,
    input wire [2:0] rxstatus6_ext,
    input wire [2:0] rxstatus7_ext,
    input wire rxvalid0_ext,
    input wire rxvalid1_ext,
    input wire rxvalid2_ext,
    input wire rxvalid3_ext,
    input wire rxvalid4_ext,
    input wire rxvalid5_ext,
    input wire rxvalid6_ext,
    input wire rxvalid7_ext,
    input wire srst,
    input wire [39:0] test_in,
    input wire [127:0] tx_st_data0,
    input wire tx_st_empty0,
    input wire tx_st_eop0,
    input wire tx_st_err0,
    input wire tx_st_sop0,
    input wire tx_st_valid0,
    output wire app_int_ack,
    output wire app_msi_ack,
    output wire clk250_out,
    output wire clk500_out,
    output wire core_clk_out,
    output wire derr_cor_ext_rcv0,
    output wire derr_cor_ext_rpl,
    output wire derr_rpl,
    output wire dlup_exit,
    output wire hotrst_exit,
    output wire [19:0] ko_cpl_spc_vc0,
    output wire l2_exit,
    output wire [3:0] lane_act,
    output wire lmi_ack,
    output wire [31:0] lmi_dout,
    output wire [4:0] ltssm,
    output wire npd_alloc_1cred_vc0,
    output wire npd_cred_vio_vc0,
    output wire nph_alloc_1cred_vc0,
    output wire nph_cred_vio_vc0,
    output wire pme_to_sr,
    output wire [1:0] powerdown_ext,
    output wire r2c_err0,
    output wire rate_ext,
    output wire rc_pll_locked,
    output wire rc_rx_digitalreset,
    output wire [33:0] reconfig_fromgxb,
    output wire reset_status,
    output wire rx_fifo_empty0,
    output wire rx_fifo_full0,
    output wire [7:0] rx_st_bardec0,
    output wire [15:0] rx_st_be0,
    output wire [127:0] rx_st_data0,
    output wire rx_st_empty0,
    output wire rx_st_eop0,
    output wire rx_st_err0,
    output wire rx_st_sop0,
    output wire rx_st_valid0,
    output wire rxpolarity0_ext,
    output wire rxpolarity1_ext,
    output wire rxpolarity2_ext,
    output wire rxpolarity3_ext,
    output wire rxpolarity4_ext,
    output wire rxpolarity5_ext,
    output wire rxpolarity6_ext,
    output wire rxpolarity7_ext,
    output wire suc_spd_neg,
    output wire [3:0] tl_cfg_add,
    output wire [31:0] tl_cfg_ctl,
    output wire tl_cfg_ctl_wr,
    output wire [52:0] tl_cfg_sts,
    output wire tl_cfg_sts_wr,
    output wire [35:0] tx_cred0,
    output wire tx_fifo_empty0,
    output wire tx_fifo_full0,
    output wire [3:0] tx_fifo_rdptr0,
    output wire [3:0] tx_fifo_wrptr0,
    output wire tx_out0,
    output wire tx_out1,
    output wire tx_out2,
    output wire tx_out3,
    output wire tx_out4,
    output wire tx_out5,
    output wire tx_out6,
    output wire tx_out7,
    output wire tx_st_ready0,
    output wire txcompl0_ext,
    output wire txcompl1_ext,
    output wire txcompl2_ext,
    output wire txcompl3_ext,
    output wire txcompl4_ext,
    output wire txcompl5_ext,
    output wire txcompl6_ext,
    output wire txcompl7_ext,
    output wire [7:0] txdata0_ext,
    output wire [7:0] txdata1_ext,
    output wire [7:0] txdata2_ext,
    output wire [7:0] txdata3_ext,
    output wire [7:0] txdata4_ext,
    output wire [7:0] txdata5_ext,
    output wire [7:0] txdata6_ext,
    output wire [7:0] txdata7_ext,
    output wire txdatak0_ext,
    output wire txdatak1_ext,
    output wire txdatak2_ext,
    output wire txdatak3_ext,
    output wire txdatak4_ext,
    output wire txdatak5_ext,
    output wire txdatak6_ext,
    output wire txdatak7_ext,
    output wire txdetectrx_ext,
    output wire txelecidle0_ext,
    output wire txelecidle1_ext,
    output wire txelecidle2_ext,
    output wire txelecidle3_ext,
    output wire txelecidle4_ext,
    output wire txelecidle5_ext,
    output wire txelecidle6_ext,
    output wire txelecidle7_ext
);
    assign app_int_ack = 1'd0;
    assign app_msi_ack = 1'd0;
    assign clk250_out = 1'd0;
    assign clk500_out = 1'd0;
    assign core_clk_out = 1'd0;
    assign derr_cor_ext_rcv0 = 1'd0;
    assign derr_cor_ext_rpl = 1'd0;
    assign derr_rpl = 1'd0;
    assign dlup_exit = 1'd0;
    assign hotrst_exit = 1'd0;
    assign ko_cpl_spc_vc0 = 20'd0;
    assign l2_exit = 1'd0;
    assign lane_act = 4'd0;
    assign lmi_ack = 1'd0;
    assign lmi_dout = 32'd0;
    assign ltssm = 5'd0;
    assign npd_alloc_1cred_vc0 = 1'd0;
    assign npd_cred_vio_vc0 = 1'd0;
    assign nph_alloc_1cred_vc0 = 1'd0;
    assign nph_cred_vio_vc0 = 1'd0;
    assign pme_to_sr = 1'd0;
    assign powerdown_ext = 2'd0;
    assign r2c_err0 = 1'd0;
    assign rate_ext = 1'd0;
    assign rc_pll_locked = 1'd0;
    assign rc_rx_digitalreset = 1'd0;
    assign reconfig_fromgxb = 34'd0;
    assign reset_status = 1'd0;
    assign rx_fifo_empty0 = 1'd0;
    assign rx_fifo_full0 = 1'd0;
    assign rx_st_bardec0 = 8'd0;
    assign rx_st_be0 = 16'd0;
    assign rx_st_data0 = 128'd0;
    assign rx_st_empty0 = 1'd0;
    assign rx_st_eop0 = 1'd0;
    assign rx_st_err0 = 1'd0;
    assign rx_st_sop0 = 1'd0;
    assign rx_st_valid0 = 1'd0;
    assign rxpolarity0_ext = 1'd0;
    assign rxpolarity1_ext = 1'd0;
    assign rxpolarity2_ext = 1'd0;
    assign rxpolarity3_ext = 1'd0;
    assign rxpolarity4_ext = 1'd0;
    assign rxpolarity5_ext = 1'd0;
    assign rxpolarity6_ext = 1'd0;
    assign rxpolarity7_ext = 1'd0;
    assign suc_spd_neg = 1'd0;
    assign tl_cfg_add = 4'd0;
    assign tl_cfg_ctl = 32'd0;
    assign tl_cfg_ctl_wr = 1'd0;
    assign tl_cfg_sts = 53'd0;
    assign tl_cfg_sts_wr = 1'd0;
    assign tx_cred0 = 36'd0;
    assign tx_fifo_empty0 = 1'd0;
    assign tx_fifo_full0 = 1'd0;
    assign tx_fifo_rdptr0 = 4'd0;
    assign tx_fifo_wrptr0 = 4'd0;
    assign tx_out0 = 1'd0;
    assign tx_out1 = 1'd0;
    assign tx_out2 = 1'd0;
    assign tx_out3 = 1'd0;
    assign tx_out4 = 1'd0;
    assign tx_out5 = 1'd0;
    assign tx_out6 = 1'd0;
    assign tx_out7 = 1'd0;
    assign tx_st_ready0 = 1'd0;
    assign txcompl0_ext = 1'd0;
    assign txcompl1_ext = 1'd0;
    assign txcompl2_ext = 1'd0;
    assign txcompl3_ext = 1'd0;
    assign txcompl4_ext = 1'd0;
    assign txcompl5_ext = 1'd0;
    assign txcompl6_ext = 1'd0;
    assign txcompl7_ext = 1'd0;
    assign txdata0_ext = 8'd0;
    assign txdata1_ext = 8'd0;
    assign txdata2_ext = 8'd0;
    assign txdata3_ext = 8'd0;
    assign txdata4_ext = 8'd0;
    assign txdata5_ext = 8'd0;
    assign txdata6_ext = 8'd0;
    assign txdata7_ext = 8'd0;
    assign txdatak0_ext = 1'd0;
    assign txdatak1_ext = 1'd0;
    assign txdatak2_ext = 1'd0;
    assign txdatak3_ext = 1'd0;
    assign txdatak4_ext = 1'd0;
    assign txdatak5_ext = 1'd0;
    assign txdatak6_ext = 1'd0;
    assign txdatak7_ext = 1'd0;
    assign txdetectrx_ext = 1'd0;
    assign txelecidle0_ext = 1'd0;
    assign txelecidle1_ext = 1'd0;
    assign txelecidle2_ext = 1'd0;
    assign txelecidle3_ext = 1'd0;
    assign txelecidle4_ext = 1'd0;
    assign txelecidle5_ext = 1'd0;
    assign txelecidle6_ext = 1'd0;
    assign txelecidle7_ext = 1'd0;
endmodule

// ALTGX_RECONFIG controller as shipped with the IP Compiler's Stratix IV example
// design (offset cancellation for the hard IP's transceivers), one per hard IP.
module altpcie_reconfig_4sgx (
    input  wire        reconfig_clk,
    input  wire        offset_cancellation_reset,
    input  wire [2:0]  logical_channel_address,
    input  wire        read,
    input  wire        write_all,
    input  wire [3:0]  rx_eqctrl,
    input  wire [2:0]  rx_eqdcgain,
    input  wire [4:0]  tx_preemp_0t,
    input  wire [4:0]  tx_preemp_1t,
    input  wire [4:0]  tx_preemp_2t,
    input  wire [2:0]  tx_vodctrl,
    input  wire [33:0] reconfig_fromgxb,
    output wire [3:0]  reconfig_togxb,
    output wire        busy,
    output wire        data_valid,
    output wire [3:0]  rx_eqctrl_out,
    output wire [2:0]  rx_eqdcgain_out,
    output wire [4:0]  tx_preemp_0t_out,
    output wire [4:0]  tx_preemp_1t_out,
    output wire [4:0]  tx_preemp_2t_out,
    output wire [2:0]  tx_vodctrl_out
);
    assign reconfig_togxb = 4'd0;
    assign busy = 1'b0;
    assign data_valid = 1'b0;
    assign rx_eqctrl_out = 4'd0;
    assign rx_eqdcgain_out = 3'd0;
    assign tx_preemp_0t_out = 5'd0;
    assign tx_preemp_1t_out = 5'd0;
    assign tx_preemp_2t_out = 5'd0;
    assign tx_vodctrl_out = 3'd0;
endmodule

// ALTPLL: on-board 100 MHz in, 50 MHz (transceiver reconfiguration and calibration
// clock) and 125 MHz (fixedclk_serdes) out.
module peach2_aux_pll (
    input  wire areset,
    input  wire inclk0,
    output wire c0,
    output wire c1,
    output wire locked
);
    assign c0 = 1'b0;
    assign c1 = 1'b0;
    assign locked = 1'b0;
endmodule
