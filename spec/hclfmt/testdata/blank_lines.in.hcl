

board "a" {


  name = "A"




  image "img" {

    source = "a.img"

  }


}



board "b" {

}


