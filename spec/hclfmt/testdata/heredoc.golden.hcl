test "fio" {
  script = <<EOT
#!/bin/sh   
   set -e



fio --name=seq   --rw=read ${var.size}   
  {

  }
EOT
  notes  = <<-NOTES
      indented heredoc keeps its text   


      }
    NOTES
  extra  = 1
}
